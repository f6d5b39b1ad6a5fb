import type { Socket } from 'node:net';
import type { PoolConnection as CorePoolConnection, QueryError } from 'mysql2';
import mysql, { type Pool } from 'mysql2/promise';
import { z } from 'zod';
import { StoreUnreachableError } from './app-error.js';
import { intVar, stringVar } from './config.js';

/** MYSQL_* variables; `defaultDatabase` differs per service. */
export function mysqlEnv(defaultDatabase: string) {
  return {
    MYSQL_HOST: stringVar('127.0.0.1'),
    MYSQL_PORT: intVar(3306, 1, 65535),
    MYSQL_USER: stringVar('root'),
    MYSQL_PASSWORD: z.string().default(''),
    MYSQL_DATABASE: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,64}$/, 'expected 1 to 64 letters, digits or _')
      .default(defaultDatabase),
    MYSQL_POOL_SIZE: intVar(10, 1, 1000),
    MYSQL_CONNECT_TIMEOUT_MS: intVar(3000, 100, 60_000),
    MYSQL_QUERY_TIMEOUT_MS: intVar(5000, 100, 600_000),
    MYSQL_QUEUE_LIMIT: intVar(100, 1, 100_000),
  };
}

export interface MysqlSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  poolSize?: number;
  connectTimeoutMs?: number;
  /** Bound on one statement; see queryWithin. */
  queryTimeoutMs?: number;
  /** Requests that may wait for a connection; past that a query fails at once. */
  queueLimit?: number;
  /**
   * Lets one query hold several statements, as transactionWithin sends them.
   * Off unless a service needs it: every statement takes its values through
   * placeholders, and a pool that allows no stacked statements is one defence more.
   */
  multipleStatements?: boolean;
}

export function mysqlSettingsFrom(env: z.infer<z.ZodObject<ReturnType<typeof mysqlEnv>>>) {
  return {
    host: env.MYSQL_HOST,
    port: env.MYSQL_PORT,
    user: env.MYSQL_USER,
    password: env.MYSQL_PASSWORD,
    database: env.MYSQL_DATABASE,
    poolSize: env.MYSQL_POOL_SIZE,
    connectTimeoutMs: env.MYSQL_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: env.MYSQL_QUERY_TIMEOUT_MS,
    queueLimit: env.MYSQL_QUEUE_LIMIT,
  } satisfies MysqlSettings;
}

const MYSQL_VARIABLES = ['MYSQL_HOST', 'MYSQL_PORT', 'MYSQL_USER', 'MYSQL_PASSWORD'];

/**
 * Creates the database when it is missing, then a pool on it. Fails fast with a
 * StoreUnreachableError when the server does not answer.
 */
export async function createMysqlPool(settings: MysqlSettings): Promise<Pool> {
  const { host, port, user, password, database } = settings;
  const connectTimeout = settings.connectTimeoutMs ?? 3000;
  try {
    const admin = await mysql.createConnection({ host, port, user, password, connectTimeout });
    try {
      await admin.query(
        `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
      );
    } finally {
      await admin.end();
    }
  } catch (err) {
    throw new StoreUnreachableError('MySQL', `${host}:${port}`, MYSQL_VARIABLES, err);
  }
  return mysql
    .createPool({
      host,
      port,
      user,
      password,
      database,
      connectTimeout,
      connectionLimit: settings.poolSize ?? 10,
      queueLimit: settings.queueLimit ?? 100,
      charset: 'utf8mb4_unicode_ci',
      enableKeepAlive: true,
      multipleStatements: settings.multipleStatements ?? false,
      timezone: 'Z',
    })
    .on('connection', (conn) => {
      // TIMESTAMP values cross the wire in UTC whatever the server's zone, as mysql2 reads them.
      conn.query("SET time_zone = '+00:00'");
    });
}

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

export type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';

/**
 * Drops a connection the server may still be writing to. The driver's own
 * destroy() only half-closes the socket (end()), and a connection whose result
 * is paused never reads the rest: the server would keep it busy ("Writing to
 * net") until net_write_timeout. Destroying the socket closes it at once, and
 * the pool opens a fresh one when needed.
 */
export function destroyConnection(conn: CorePoolConnection): void {
  conn.destroy();
  (conn as unknown as { stream: Socket }).stream.destroy();
}

interface StatementOptions {
  prepared?: boolean;
  rowsAsArray?: boolean;
}

/**
 * One statement on a connection the caller holds, bounded by `timeoutMs`. A
 * statement that timed out may still be running on the server, so the
 * connection is destroyed then, as it is after a fatal error; the caller
 * releases it otherwise. (The driver's callback API: its promise wrapper
 * captures a stack trace per call, a tenth of a short request's time.)
 */
function statementOn<T>(
  conn: CorePoolConnection,
  timeoutMs: number,
  sql: string,
  values: unknown[],
  { prepared = false, rowsAsArray = false }: StatementOptions,
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

function connectionOf(pool: Pool): Promise<CorePoolConnection> {
  return new Promise((resolve, reject) =>
    pool.pool.getConnection((err, conn) => (err ? reject(err) : resolve(conn))),
  );
}

/** A connection the driver has not dropped (after a timeout or a fatal error). */
const usable = (conn: CorePoolConnection) =>
  !(conn as unknown as { stream: Socket }).stream.destroyed;

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
    if (usable(conn)) conn.release();
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
 * multipleStatements), bounded like queryWithin's. The server stops at a
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
  const sql = ['START TRANSACTION', ...statements.map((statement) => statement.sql), 'COMMIT'];
  const values = statements.flatMap((statement) => statement.values);
  const conn = await connectionOf(pool);
  try {
    const results = await statementOn<unknown[]>(conn, timeoutMs, sql.join(';\n'), values, {});
    conn.release();
    return results.slice(1, -1);
  } catch (err) {
    if (usable(conn)) {
      await statementOn(conn, timeoutMs, 'ROLLBACK', [], {}).then(
        () => conn.release(),
        () => destroyConnection(conn),
      );
    }
    throw err;
  }
}
