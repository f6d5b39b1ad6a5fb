import {
  connectRedis,
  createMysqlPool,
  migrate,
  type Pool,
  type RedisClient,
  type RowDataPacket,
} from '@svc/common';
import {
  createTestDatabase,
  createTestRedis,
  type Fault,
  type FaultKind,
  type FaultProxy,
  type MysqlSettings,
  startFaultProxy,
  startMariaDbServer,
  type TestServer,
} from '@svc/test-kit';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { expect } from 'vitest';
import type { AuthSettings } from '../../src/config.js';
import { migrationsDir } from '../../src/migrations-dir.js';
import { verifyPassword } from '../../src/users/password.js';
import { buildApp } from './test-app.js';

/*
 * The service on a MariaDB of its own and a Redis database of its own, each
 * behind a fault proxy, with direct connections that read what the stores
 * really hold. Faults are the proxies' (a command or statement cut before it
 * arrives, its answer lost, a stall across a restart) and locks held from
 * another connection; never mocks.
 */

/** Short bounds, so that each fault is met and answered within a second or two. */
const FAULT_SETTINGS: Partial<AuthSettings> = {
  // The server gives a lock wait up after a second (half of it).
  queryTimeoutMs: 2000,
};
const REDIS_COMMAND_TIMEOUT_MS = 400;

export interface FaultBench {
  /** The MariaDB's database, reached directly. */
  settings: MysqlSettings;
  redisProxy: FaultProxy;
  mysqlProxy: FaultProxy;
  mysqlServer: TestServer;
  /** What the stores hold, read past the proxies. */
  direct: { pool: Pool; redis: Redis };
  /** A new app on new connections through the proxies; closed with the bench. */
  app(settings?: Partial<AuthSettings>): Promise<Express>;
  close(): Promise<void>;
}

export async function openFaultBench(): Promise<FaultBench> {
  const mysqlServer = await startMariaDbServer();
  const database = await createTestDatabase(mysqlServer.url);
  const pool = await createMysqlPool(database.settings);
  await migrate(pool, migrationsDir);
  const { url: _, ...redisSettings } = (await createTestRedis()).settings;
  const redis = (await connectRedis(redisSettings)) as Redis;
  const redisProxy = await startFaultProxy({ target: redisSettings });
  const mysqlProxy = await startFaultProxy({ target: database.settings });
  const opened: { pool: Pool; redis: RedisClient }[] = [];
  return {
    settings: database.settings,
    redisProxy,
    mysqlProxy,
    mysqlServer,
    direct: { pool, redis },
    async app(settings = {}) {
      const { host, port } = mysqlProxy;
      const through = {
        pool: await createMysqlPool({ ...database.settings, host, port, queryTimeoutMs: 2000 }),
        redis: await connectRedis({
          ...redisSettings,
          host: redisProxy.host,
          port: redisProxy.port,
          commandTimeoutMs: REDIS_COMMAND_TIMEOUT_MS,
        }),
      };
      opened.push(through);
      return buildApp(through, { ...FAULT_SETTINGS, ...settings }).app;
    },
    async close() {
      for (const stores of opened) {
        stores.redis.disconnect();
        await stores.pool.end().catch(() => {});
      }
      redis.disconnect();
      await pool.end();
      await redisProxy.close();
      await mysqlProxy.close();
      await mysqlServer.destroy();
    },
  };
}

/**
 * A fault on the next client chunk that matches, and what the store is after
 * it: `gone` keeps new connections out until `over()` (so nothing the client
 * queued can reach the store before the request has answered).
 */
export function faultAt(
  proxy: FaultProxy,
  match: string | RegExp,
  kind: FaultKind,
  { gone = false } = {},
): { fault: Fault; over(): void } {
  let met = false;
  const fault = proxy.fault(match, kind, { settleMs: 50 });
  fault.met.then(() => {
    met = true;
    if (gone) {
      proxy.refuse(true);
      proxy.cutAll();
    }
  });
  return {
    fault,
    /** The store back; fails when the fault was never met (the test would prove nothing). */
    over() {
      proxy.refuse(false);
      fault.release();
      expect(met, `the fault on ${String(match)} was met`).toBe(true);
    },
  };
}

/** A connection past the proxy that holds what `statements` lock, in a transaction, until `release()`. */
export async function holding(bench: FaultBench, statements: [string, unknown[]][]) {
  const holder = await mysql.createConnection(bench.settings);
  await holder.query('START TRANSACTION');
  for (const [sql, values] of statements) await holder.query(sql, values);
  return {
    holder,
    async release() {
      await holder.query('ROLLBACK');
      await holder.end();
    },
  };
}

/** Resolves once a statement that starts with `sql` is running on the server (waiting for a lock). */
export async function runningSeen(pool: Pool, sql: string): Promise<void> {
  const running = async () => {
    const [rows] = await pool.query<RowDataPacket[]>(
      'SELECT COUNT(*) AS n FROM information_schema.processlist WHERE info LIKE ?',
      [`${sql}%`],
    );
    return Number(rows[0]?.n);
  };
  await expect.poll(running, { timeout: 2000, interval: 10 }).toBeGreaterThan(0);
}

/** Whether the stored hash of this user verifies `password`. */
export async function passwordIs(pool: Pool, username: string, password: string) {
  const [rows] = await pool.query<RowDataPacket[]>(
    'SELECT password FROM users WHERE username = ?',
    [username],
  );
  const stored = rows[0]?.password as string | undefined;
  return stored !== undefined && (await verifyPassword(password, stored)).ok;
}

/** The user's security events of these types, oldest first. */
export async function eventsOf(pool: Pool, username: string, type: string): Promise<unknown[]> {
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT e.id, e.session_id AS sessionId FROM security_events e JOIN users u ON u.id = e.user_id
     WHERE u.username = ? AND e.type = ? ORDER BY e.id`,
    [username, type],
  );
  return rows;
}

/** Every session key of the user, indexed or not (random scheme): what a login may have left. */
export async function sessionKeysOf(redis: Redis, username: string): Promise<string[]> {
  const keys = (await redis.keys('session:*')).filter((key) => /^session:[0-9a-f]{64}$/.test(key));
  const owners = await Promise.all(keys.map((key) => redis.get(key)));
  return keys.filter((_, i) => owners[i] === username);
}
