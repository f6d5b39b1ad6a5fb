import { randomBytes } from 'node:crypto';
import {
  connectRedis,
  createLogger,
  createMysqlPool,
  type Logger,
  migrate,
  type Pool,
  type RowDataPacket,
} from '@svc/common';
import type { TokenScheme } from '@svc/session-guard';
import {
  type CapturedLogs,
  captureLogs,
  createTestDatabase,
  createTestRedis,
  recordResponses,
} from '@svc/test-kit';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { expect } from 'vitest';
import { createApp } from '../../src/app.js';
import type { AuthSettings } from '../../src/config.js';
import { migrationsDir } from '../../src/migrations-dir.js';

export const SCHEMES: TokenScheme[] = ['random', 'md5'];
export const UNAVAILABLE = { code: 503, message: '服务暂不可用,请稍后重试' };
export const NO_TOKEN = { code: 401, message: '未携带Token,请先登录' };
export const INVALID_TOKEN = { code: 401, message: 'Token无效或已过期,请重新登录' };
export const WRONG_CREDENTIALS = { code: 401, message: '用户名或密码错误' };
export const TOO_MANY = { code: 429, message: '登录失败次数过多,请稍后再试' };
/** A login's `data.deviceToken`: 50 characters of base64url. */
export const DEVICE_TOKEN = expect.stringMatching(/^[A-Za-z0-9_-]{50}$/);

/** A MySQL database (migrated) and a Redis database of the calling file's own. */
export interface Stores {
  pool: Pool;
  redis: Redis;
  close(): Promise<void>;
}

export async function openStores(): Promise<Stores> {
  const database = await createTestDatabase();
  const pool = await createMysqlPool(database.settings);
  await migrate(pool, migrationsDir);
  const redis = await connectRedis((await createTestRedis()).settings);
  return {
    pool,
    redis,
    async close() {
      redis.disconnect();
      await pool.end();
      await database.drop();
    },
  };
}

interface TestApp {
  app: Express;
  logs: CapturedLogs<Logger>;
}

/**
 * The real app on the given stores. Every JSON answer it gives is recorded and,
 * after the file's tests, checked against the OpenAPI document
 * (`documented-responses.ts`).
 */
export function buildApp(
  stores: Pick<Stores, 'pool' | 'redis'>,
  settings?: Partial<AuthSettings>,
  logs: CapturedLogs<Logger> = testLogs('auth'),
): TestApp {
  const app = createApp({ ...stores, logger: logs.logger, settings });
  return { app: recordResponses(app), logs };
}

/** A name no other test of the run uses, within the 32-character rule. */
export function uniqueName(base = 'user'): string {
  return `${base}_${randomBytes(5).toString('hex')}`;
}

interface Account {
  id: number;
  username: string;
  password: string;
}

export async function registerUser(app: Express, username = uniqueName()): Promise<Account> {
  const password = `pw-${randomBytes(6).toString('hex')}`;
  const res = await request(app).post('/api/user/register').send({ username, password });
  expect(res.status).toBe(200);
  return { id: res.body.data.id, username, password };
}

export async function login(app: Express, username: string, password: string): Promise<string> {
  const res = await request(app).post('/api/user/login').send({ username, password });
  expect(res.body).toMatchObject({ code: 200, message: '登录成功' });
  return res.body.data.token as string;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

export async function passwordOf(pool: Pool, id: number): Promise<string> {
  const [rows] = await pool.query<RowDataPacket[]>('SELECT password FROM users WHERE id = ?', [id]);
  return rows[0]?.password as string;
}

export async function countUsers(pool: Pool): Promise<number> {
  const [rows] = await pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM users');
  return Number(rows[0]?.n);
}

/** Every key in the file's Redis database, sorted. */
export async function allKeys(redis: Redis): Promise<string[]> {
  return (await redis.keys('*')).sort();
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The production logger on a stream the test reads. */
export const testLogs = (name = 'test') =>
  captureLogs((sink) => createLogger({ name, level: 'trace' }, sink));
