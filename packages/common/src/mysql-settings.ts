import mysql, { type Pool } from 'mysql2/promise';
import { z } from 'zod';
import { intVar, stringVar } from './config.js';
import { StoreUnreachableError } from './errors.js';

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
  return openMysqlPool(settings);
}

/**
 * How long the server lets a statement wait for another transaction's lock:
 * half the service's own bound on a statement, in whole seconds (at least
 * one, the server's least), so the server gives a lock wait up, and nothing
 * of it commits, before the service gives up on its own clock.
 */
const lockWaitSeconds = (queryTimeoutMs: number) => Math.max(1, Math.floor(queryTimeoutMs / 2000));

/**
 * The pool alone, with no start-up check: its connections are opened when a
 * statement needs one (for a server that may be down at start, as a replica).
 */
export function openMysqlPool(settings: MysqlSettings): Pool {
  const { host, port, user, password, database } = settings;
  const lockWait = lockWaitSeconds(settings.queryTimeoutMs ?? 5000);
  return mysql
    .createPool({
      host,
      port,
      user,
      password,
      database,
      connectTimeout: settings.connectTimeoutMs ?? 3000,
      connectionLimit: settings.poolSize ?? 10,
      queueLimit: settings.queueLimit ?? 100,
      charset: 'utf8mb4_unicode_ci',
      enableKeepAlive: true,
      multipleStatements: settings.multipleStatements ?? false,
      timezone: 'Z',
    })
    .on('connection', (conn) => {
      // TIMESTAMP values cross the wire in UTC whatever the server's zone, as mysql2 reads them.
      conn.query(`SET time_zone = '+00:00', innodb_lock_wait_timeout = ${lockWait}`);
    });
}

export type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
