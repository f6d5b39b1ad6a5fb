/**
 * The one place that calls mysql2: a connection of the pool, one statement or
 * one transaction on it, each bounded by a timeout. It alone reaches past the
 * driver's typed API: the callback pool behind the promise pool, a
 * connection's socket, and the pool's counts, which no public call gives.
 * test/mysql-driver.test.ts fails when an installed mysql2 changes any of them.
 */
import type { Socket } from 'node:net';
import type { PoolConnection, QueryError } from 'mysql2';
import type { Pool } from 'mysql2/promise';
import { queryTimedOut } from './mysql-failures.js';

export type { PoolConnection } from 'mysql2';

/** The pool's own fields behind its connection counts (mysql2's ring queues). */
interface PoolInternals {
  _allConnections: { length: number };
  _freeConnections: { length: number };
  _connectionQueue: { length: number };
}

const socketOf = (conn: PoolConnection) => (conn as unknown as { stream: Socket }).stream;

/**
 * A connection of the pool on the driver's callback API: the one a streamed
 * query needs, and cheaper than the promise wrapper, which captures a stack
 * trace per call. The caller releases or destroys it.
 */
export function connectionOf(pool: Pool): Promise<PoolConnection> {
  return new Promise((resolve, reject) =>
    pool.pool.getConnection((err, conn) => (err ? reject(err) : resolve(conn))),
  );
}

/**
 * Drops a connection the server may still be writing to. The driver's own
 * destroy() only half-closes the socket (end()), and a connection whose result
 * is paused never reads the rest: the server would keep it busy ("Writing to
 * net") until net_write_timeout. Destroying the socket closes it at once, and
 * the pool opens a fresh one when needed.
 */
export function destroyConnection(conn: PoolConnection): void {
  conn.destroy();
  socketOf(conn).destroy();
}

/** False once the connection was destroyed (after a timeout or a fatal error). */
export function isUsable(conn: PoolConnection): boolean {
  return !socketOf(conn).destroyed;
}

/** The pool's connections: open, free among them, and requests queued for one. */
export function poolCounts(pool: Pool): { all: number; free: number; queued: number } {
  const internals = pool.pool as unknown as PoolInternals;
  return {
    all: internals._allConnections.length,
    free: internals._freeConnections.length,
    queued: internals._connectionQueue.length,
  };
}

/** How many connections the pool opens at most: how many statements can run at once. */
export function poolSize(pool: Pool): number {
  return pool.pool.config.connectionLimit ?? 10;
}

interface StatementOptions {
  prepared?: boolean;
  rowsAsArray?: boolean;
}

/**
 * One statement on a connection the caller holds, bounded by `timeoutMs`. A
 * statement that timed out may still be running on the server, so the
 * connection is destroyed then, as it is after a fatal error; the caller
 * releases it otherwise.
 */
export function statementOn<T>(
  conn: PoolConnection,
  timeoutMs: number,
  sql: string,
  values: unknown[] = [],
  { prepared = false, rowsAsArray = false }: StatementOptions = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    // The driver bounds only text queries; one timer bounds both kinds.
    const timer = setTimeout(() => {
      settled = true;
      destroyConnection(conn);
      reject(queryTimedOut());
    }, timeoutMs);
    const done = (err: QueryError | null, result: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!err) resolve(result as T);
      else {
        if (err.fatal) destroyConnection(conn);
        reject(err);
      }
    };
    if (prepared) conn.execute({ sql, values, rowsAsArray }, done);
    else conn.query({ sql, values, rowsAsArray }, done);
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
 * Runs `statements` as one transaction in one round trip: START TRANSACTION,
 * the statements and COMMIT go to the server as one query (the pool must allow
 * multipleStatements), bounded like queryWithin's. The transaction reads
 * committed rows: a locking read of a row that does not exist then locks no
 * gap, so two transactions that each check a different missing key and then
 * insert it do not deadlock (the binary log, if any, must then be ROW or
 * MIXED, the servers' defaults). The server stops at a
 * statement that fails, and the transaction is then rolled back. A
 * connection that timed out is destroyed; the server, which has the whole
 * transaction, finishes it or rolls it back, but never does a part: a
 * transaction that timed out may have committed. Resolves with each
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
    const results = await statementOn<unknown[]>(conn, timeoutMs, sql.join(';\n'), values, {});
    conn.release();
    return results.slice(2, -1);
  } catch (err) {
    if (isUsable(conn)) {
      await statementOn(conn, timeoutMs, 'ROLLBACK', [], {}).then(
        () => conn.release(),
        () => destroyConnection(conn),
      );
    }
    throw err;
  }
}
