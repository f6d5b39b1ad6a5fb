import { createConnection, type PoolConnection, type QueryError } from 'mysql2';
import type { Pool } from 'mysql2/promise';
import { connectionOf, destroyConnection, isUsable } from './mysql-driver.js';
import { outcomeUnknown, queryTimedOut } from './mysql-failures.js';

interface StatementOptions {
  prepared?: boolean;
  rowsAsArray?: boolean;
  /**
   * The statement (from 0, of a query holding several) whose success commits
   * what the query writes: a write in autocommit is its own (0), a
   * transaction its COMMIT's. When the query's answer never comes from that
   * statement on, its outcome is unknown (see statementOn).
   */
  commitsAt?: number;
}

/** How long a statement the service gave up on may take to be stopped, and to say how it ended. */
const KILL_WAIT_MS = 1000;

/**
 * Stops the statement running on the server's thread `threadId` (KILL QUERY,
 * from a connection of its own: the pool's may all be busy); resolves once
 * the server took the order, or after `timeoutMs` when it did not answer.
 */
function killQuery(config: PoolConnection['config'], threadId: number, timeoutMs: number) {
  const { host, port, user, password, socketPath, ssl } = config;
  return new Promise<void>((resolve) => {
    const killer = createConnection({
      host,
      port,
      user,
      password,
      socketPath,
      ssl,
      connectTimeout: timeoutMs,
    });
    const end = () => {
      clearTimeout(timer);
      killer.destroy();
      resolve();
    };
    const timer = setTimeout(end, timeoutMs);
    killer.on('error', end);
    killer.query(`KILL QUERY ${Number(threadId)}`, end);
  });
}

/**
 * One statement (or several, in one query) on a connection the caller holds,
 * bounded by `timeoutMs`, and an answer that is the truth about what it
 * wrote. Past the bound the statement is stopped on the server (KILL QUERY)
 * before anything is answered, and the connection is destroyed: the server
 * then rolls back whatever it had not committed. The statement's own answer,
 * if it comes within KILL_WAIT_MS of that, says how it ended: done (answered
 * as such, late), or stopped before `commitsAt` (a timeout: nothing was
 * written). Any other end of a query with `commitsAt` (no answer, the
 * connection lost after it was sent, or stopped at or after its commit) is
 * an outcome unknown. A server's error answer means nothing was committed.
 * The caller releases the connection after a success; after a failure only
 * when isUsable says so.
 */
export function statementOn<T>(
  conn: PoolConnection,
  timeoutMs: number,
  sql: string,
  values: unknown[] = [],
  { prepared = false, rowsAsArray = false, commitsAt }: StatementOptions = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    if (!isUsable(conn)) {
      reject(Object.assign(new Error('the connection is closed'), { fatal: true }));
      return;
    }
    let settled = false;
    let stopping = false;
    /** Statements of the query the server has answered so far. */
    let answered = 0;
    const writes = commitsAt !== undefined;
    const settle = (err?: unknown, result?: unknown) => {
      settled = true;
      clearTimeout(timer);
      if (err === undefined) resolve(result as T);
      else reject(err);
    };
    const fail = (err: unknown) => {
      destroyConnection(conn);
      settle(err);
    };
    // The driver bounds only text queries; one timer bounds both kinds.
    const timer = setTimeout(() => {
      stopping = true;
      killQuery(conn.config, conn.threadId, KILL_WAIT_MS)
        .then(() => new Promise((wait) => setTimeout(wait, KILL_WAIT_MS)))
        .then(() => {
          if (!settled) fail(writes ? outcomeUnknown() : queryTimedOut());
        });
    }, timeoutMs);
    const done = (err: QueryError | null, result: unknown) => {
      if (settled) return;
      if (!err) settle(undefined, result);
      else if (stopping) {
        fail(writes && answered >= commitsAt ? outcomeUnknown(err) : queryTimedOut());
      } else if (err.fatal) fail(writes ? outcomeUnknown(err) : err);
      else settle(err);
    };
    const query = prepared
      ? conn.execute({ sql, values, rowsAsArray }, done)
      : conn.query({ sql, values, rowsAsArray }, done);
    query.on('fields', () => {
      answered += 1;
    });
  });
}

/**
 * One statement on a connection of the pool, bounded by `timeoutMs`; see
 * statementOn. `prepared` sends it as a server-side prepared statement, which
 * the driver keeps per connection: the server parses it once, not on every
 * call. It suits writes, whose answer is only a row count or an id; reads stay
 * on the text protocol, whose value types the callers expect. `rowsAsArray`
 * gives each row as an array of its column values instead of an object.
 */
export async function queryWithin<T>(
  pool: Pool,
  timeoutMs: number,
  sql: string,
  values: unknown[],
  options: StatementOptions = {},
): Promise<T> {
  const conn = await connectionOf(pool);
  try {
    return await statementOn<T>(conn, timeoutMs, sql, values, options);
  } finally {
    if (isUsable(conn)) conn.release();
  }
}

/** One statement and the values of its placeholders. */
export interface Statement {
  sql: string;
  values: unknown[];
}

/**
 * Runs `statements` (one SQL statement each) as one transaction in one round
 * trip: START TRANSACTION, the statements and COMMIT go to the server as one
 * query (the pool must allow multipleStatements), bounded like queryWithin's.
 * The transaction reads committed rows: a locking read of a row that does
 * not exist then locks no gap, so two transactions that each check a
 * different missing key and then insert it do not deadlock (the binary log,
 * if any, must then be ROW or MIXED, the servers' defaults). The server stops
 * at a statement that fails, so COMMIT never runs after one, and the
 * transaction is then rolled back. One that ran past the bound is stopped
 * before its COMMIT or is an outcome unknown (statementOn). Resolves with each
 * statement's result. A later statement may use what an earlier one did:
 * LAST_INSERT_ID() is the first id of the last INSERT.
 */
export async function transactionWithin(
  pool: Pool,
  timeoutMs: number,
  statements: Statement[],
): Promise<unknown[]> {
  const sql = [
    'SET TRANSACTION ISOLATION LEVEL READ COMMITTED',
    'START TRANSACTION',
    ...statements.map((statement) => statement.sql),
    'COMMIT',
  ];
  const values = statements.flatMap((statement) => statement.values);
  const conn = await connectionOf(pool);
  try {
    const results = await statementOn<unknown[]>(conn, timeoutMs, sql.join(';\n'), values, {
      commitsAt: sql.length - 1,
    });
    conn.release();
    return results.slice(2, -1);
  } catch (err) {
    if (isUsable(conn)) {
      await statementOn(conn, timeoutMs, 'ROLLBACK').then(
        () => conn.release(),
        () => destroyConnection(conn),
      );
    }
    throw err;
  }
}
