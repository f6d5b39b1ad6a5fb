import { migrate, type Pool, type RowDataPacket } from '@svc/common';
import { createTestDatabase, startMariaDbServer, type TestServer } from '@svc/test-kit';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsDir } from '../src/migrations-dir.js';
import { encodeCursor } from '../src/orders/order-cursor.js';
import {
  addMerchant,
  addService,
  createPlatformPool,
  createRecordedApp,
  testLogs,
} from './support/test-app.js';

/**
 * Cursor pages when every order shares one create_time second, as a burst's
 * do. A server of this file's own: its Handler_read counters then count this
 * file's reads alone.
 */

const ORDERS = 40_000;
const SECOND = '2026-01-01 12:00:00';
const PAGE = 100;

let server: TestServer;
let pool: Pool;
let app: Express;

beforeAll(async () => {
  server = await startMariaDbServer();
  pool = await createPlatformPool((await createTestDatabase(server.url)).settings);
  await migrate(pool, migrationsDir);
  app = createRecordedApp({ pool, logger: testLogs('cursor-depth').logger });
  const serviceId = await addService(app, await addMerchant(app));
  for (let from = 0; from < ORDERS; from += 5000) {
    const rows = Array.from({ length: 5000 }, (_, i) => [
      serviceId,
      `客户${from + i}`,
      '139',
      SECOND,
    ]);
    await pool.query(
      'INSERT INTO orders (service_id, user_name, user_phone, create_time) VALUES ?',
      [rows],
    );
  }
});
afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

/** Index entries the server has read since it started (lookups and steps along an index). */
async function indexReads(): Promise<number> {
  const [rows] = await pool.query<RowDataPacket[]>(
    "SHOW GLOBAL STATUS WHERE Variable_name IN ('Handler_read_key', 'Handler_read_next', 'Handler_read_prev', 'Handler_read_first', 'Handler_read_last')",
  );
  return rows.reduce((sum, row) => sum + Number(row.Value), 0);
}

/** The index entries one request reads, and its answer. */
async function measured(path: string) {
  const before = await indexReads();
  const res = await request(app).get(path);
  const reads = (await indexReads()) - before;
  expect(res.body.code, JSON.stringify(res.body)).toBe(200);
  return { res, reads };
}

/** The cursor after row `depth`, as a client that walked that far would hold it. */
async function cursorAfterRow(depth: number, status?: number) {
  const [[secret]] = await pool.query<RowDataPacket[]>(
    "SELECT secret FROM platform_secrets WHERE name = 'cursor'",
  );
  const filter = status === undefined ? '' : `WHERE status = ${status}`;
  const [[row]] = await pool.query<RowDataPacket[]>(
    `SELECT id, UNIX_TIMESTAMP(create_time) AS t FROM orders ${filter}
     ORDER BY create_time DESC, id DESC LIMIT 1 OFFSET ?`,
    [depth - 1],
  );
  return encodeCursor(secret?.secret, { status, createTime: Number(row?.t), id: row?.id });
}

const ids = (res: request.Response) => res.body.data.map((row: { id: number }) => row.id);

describe(`cursor pages with ${ORDERS} orders in one second`, () => {
  it('reads as many index entries after row 36,000 as on the second page, and the right rows', async () => {
    const first = await request(app).get(`/api/order/list?pageSize=${PAGE}`);
    const second = await measured(
      `/api/order/list?pageSize=${PAGE}&cursor=${first.headers['x-next-cursor']}`,
    );
    const deep = await measured(
      `/api/order/list?pageSize=${PAGE}&cursor=${await cursorAfterRow(36_000)}`,
    );
    const [newest] = await pool.query<RowDataPacket[]>('SELECT MAX(id) AS id FROM orders');
    const top = newest[0]?.id as number;
    expect(ids(deep.res)).toEqual(Array.from({ length: PAGE }, (_, i) => top - 36_000 - i));
    expect(second.reads).toBeLessThan(10 * PAGE);
    expect(deep.reads).toBeLessThanOrEqual(second.reads * 1.2);
  });

  it('does the same within one status', async () => {
    await pool.query('UPDATE orders SET status = id % 2');
    const deep = await measured(
      `/api/order/list?status=1&pageSize=${PAGE}&cursor=${await cursorAfterRow(18_000, 1)}`,
    );
    expect(deep.res.body.data).toHaveLength(PAGE);
    expect(deep.reads).toBeLessThan(10 * PAGE);
  });
});
