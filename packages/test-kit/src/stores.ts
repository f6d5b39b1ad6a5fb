import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import type { MysqlSettings, RedisSettings } from './settings.js';

/** Connection settings for a server given as mysql://user:password@host:port. */
export function mysqlSettingsFromUrl(url: string, database: string): MysqlSettings {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username || 'root'),
    password: decodeURIComponent(parsed.password),
    database,
  };
}

function serverUrl(variable: 'TEST_MYSQL_URL' | 'TEST_REDIS_URL'): string {
  const url = process.env[variable];
  if (!url)
    throw new Error(
      `${variable} is not set: run the tests through vitest with the test kit's global setup`,
    );
  return url;
}

/** The MYSQL_* variables that point a service process at these settings. */
export function mysqlVariables(settings: MysqlSettings): Record<string, string> {
  return {
    MYSQL_HOST: settings.host,
    MYSQL_PORT: String(settings.port),
    MYSQL_USER: settings.user,
    MYSQL_PASSWORD: settings.password,
    MYSQL_DATABASE: settings.database,
  };
}

export interface TestDatabase {
  settings: MysqlSettings;
  drop(): Promise<void>;
}

/**
 * A database of the calling test file's own on the run's server (or at `url`);
 * it does not exist until a pool creates it.
 */
export async function createTestDatabase(url = serverUrl('TEST_MYSQL_URL')): Promise<TestDatabase> {
  const settings = mysqlSettingsFromUrl(url, `test_${randomBytes(6).toString('hex')}`);
  return {
    settings,
    async drop() {
      const { database, ...server } = settings;
      const conn = await mysql.createConnection(server);
      await conn.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await conn.end();
    },
  };
}

interface TestRedis {
  url: string;
  settings: RedisSettings;
  /** Empties this file's key space. */
  flush(): Promise<void>;
}

/**
 * A Redis database index of the calling test file's own, emptied first. The
 * index comes from a counter in database 0, so parallel files never share one.
 */
export async function createTestRedis(url = serverUrl('TEST_REDIS_URL')): Promise<TestRedis> {
  const admin = new Redis(url, { lazyConnect: true });
  await admin.connect();
  try {
    const [, databases] = (await admin.config('GET', 'databases')) as [string, string];
    const counter = await admin.incr('test-kit:next-db');
    const db = 1 + ((counter - 1) % (Number(databases) - 1));
    const parsed = new URL(url);
    parsed.pathname = `/${db}`;
    const settings: RedisSettings = {
      url: parsed.toString(),
      host: parsed.hostname,
      port: Number(parsed.port || 6379),
      password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
      db,
    };
    const flush = async () => {
      const client = new Redis(settings.url);
      await client.flushdb();
      client.disconnect();
    };
    await flush();
    return { url: settings.url, settings, flush };
  } finally {
    admin.disconnect();
  }
}
