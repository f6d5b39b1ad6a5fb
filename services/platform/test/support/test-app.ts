import {
  createLogger,
  createMetrics,
  createMysqlPool,
  type Logger,
  type Metrics,
  migrate,
  type Pool,
  type ResultSetHeader,
  type RowDataPacket,
} from '@svc/common';
import {
  type CapturedLogs,
  captureLogs,
  createTestDatabase,
  type MysqlSettings,
  recordResponses,
} from '@svc/test-kit';
import type { Express } from 'express';
import request from 'supertest';
import { type AppDeps, createApp } from '../../src/app.js';
import { eventOutbox } from '../../src/feed/event-outbox.js';
import { migrationsDir } from '../../src/migrations-dir.js';
import { platformDatabase } from '../../src/store/database.js';

/**
 * The production app with a recorder of its JSON answers: after each test file,
 * test/support/documented-responses.ts checks every answer against the document.
 */
export const createRecordedApp = (deps: AppDeps): Express => recordResponses(createApp(deps));

export interface TestApp {
  app: Express;
  /** With `withMetrics`: the app's metrics, over its own pool. */
  metrics?: Metrics;
  pool: Pool;
  /** Where `pool` connects: the database of this test file. */
  settings: MysqlSettings;
  logs: CapturedLogs<Logger>;
  /** Rows now in each table. */
  counts(): Promise<{ merchants: number; services: number; orders: number }>;
  /** Empties every table (the foreign keys cascade from merchants). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** A pool as the platform's main makes one; `queryTimeoutMs` sets the server's lock wait (half of it). */
export const createPlatformPool = (
  settings: MysqlSettings & { queryTimeoutMs?: number; connectTimeoutMs?: number },
) => createMysqlPool({ ...settings, multipleStatements: true });

/** The real app on a database of the calling file's own, migrated like production. */
export async function createTestApp(
  options: {
    bodyLimitKb?: number;
    withMetrics?: boolean;
    adminToken?: string;
    webhooksAllowPrivate?: boolean;
    /** Publish events in the background, as main does. */
    publishing?: boolean;
  } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const pool = await createPlatformPool(database.settings);
  await migrate(pool, migrationsDir);
  const logs = testLogs('platform-test');
  const { withMetrics, publishing, ...deps } = options;
  const metrics = withMetrics ? createMetrics({ pool }) : undefined;
  const outbox = eventOutbox(platformDatabase(pool), logs.logger);
  const stopPublishing = publishing ? outbox.publisher.start() : async () => {};
  const app = createRecordedApp({ pool, logger: logs.logger, metrics, outbox, ...deps });
  return {
    app,
    metrics,
    pool,
    settings: database.settings,
    logs,
    async counts() {
      const [rows] = await pool.query<RowDataPacket[]>(
        `SELECT (SELECT COUNT(*) FROM merchants) AS merchants,
                (SELECT COUNT(*) FROM services) AS services,
                (SELECT COUNT(*) FROM orders) AS orders`,
      );
      const { merchants, services, orders } = rows[0]!;
      return { merchants, services, orders };
    },
    async reset() {
      await pool.query('DELETE FROM merchants');
    },
    async close() {
      await stopPublishing();
      await pool.end();
      await database.drop();
    },
  };
}

export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const merchantInput = { name: '张三家政', address: '北京市朝阳区1号', phone: '13800138000' };

export const serviceInput = {
  name: '日常保洁',
  price: 150,
  category: '保洁',
  image_url: 'https://img.example/clean.png',
  stock: 5,
};

export const orderInput = { user_name: '李四', user_phone: '13912345678' };

/** Creates through the API, as a client would, and returns the new id. */
async function created(app: Express, path: string, body: object): Promise<number> {
  const res = await request(app).post(path).send(body);
  if (res.body.code !== 200) throw new Error(`${path} failed: ${JSON.stringify(res.body)}`);
  return res.body.data.id as number;
}

export const addMerchant = (app: Express, body: object = {}) =>
  created(app, '/api/merchant/add', { ...merchantInput, ...body });

export const addService = (app: Express, merchantId: number, body: object = {}) =>
  created(app, '/api/service/add', { ...serviceInput, merchant_id: merchantId, ...body });

export const addOrder = (app: Express, serviceId: number, body: object = {}) =>
  created(app, '/api/order/create', { ...orderInput, service_id: serviceId, ...body });

/** One row as the database holds it. */
export async function rowOf(pool: Pool, table: string, id: number): Promise<RowDataPacket> {
  const [rows] = await pool.query<RowDataPacket[]>('SELECT * FROM ?? WHERE id = ?', [table, id]);
  if (!rows[0]) throw new Error(`no ${table} row ${id}`);
  return rows[0];
}

export async function execute(pool: Pool, sql: string, values: unknown[] = []) {
  const [result] = await pool.query<ResultSetHeader>(sql, values);
  return result;
}

/** The production logger on a stream the test reads. */
export const testLogs = (name = 'test') =>
  captureLogs((sink) => createLogger({ name, level: 'trace' }, sink));
