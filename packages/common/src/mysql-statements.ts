import type { QueryError } from 'mysql2';
import type { Pool } from 'mysql2/promise';
import { connectionOf, destroyConnection, isUsable, type PoolConnection } from './mysql-driver.js';

/** The driver's code for a statement that ran past its bound. */
const TIMED_OUT = 'PROTOCOL_SEQUENCE_TIMEOUT';

/** A statement that ran past its bound, as the driver reports one: isMysqlUnavailable is true for it. */
export function queryTimedOut(): Error {
  return Object.assign(new Error('Query inactivity timeout'), { code: TIMED_OUT });
}

/** Codes of a MySQL server that is down, unreachable or too slow to answer. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  TIMED_OUT,
  'POOL_CLOSED',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
]);

// mysql2 gives its full pool queue no code, only this text.
const QUEUE_FULL = 'Queue limit reached.';

/**
 * True when a mysql2 error means the server could not answer (down, hung, or
 * every connection busy and the queue full), rather than that the query was wrong.
 */
export function isMysqlUnavailable(err: unknown): boolean {
  const { fatal, code, message } = (err ?? {}) as {
    fatal?: unknown;
    code?: unknown;
    message?: unknown;
  };
  return (
    fatal === true || (typeof code === 'string' && UNREACHABLE.has(code)) || message === QUEUE_FULL
  );
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
