import type { Pool, RowDataPacket } from '@svc/common';
import type { Express } from 'express';
import mysql from 'mysql2/promise';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  addMerchant,
  addService,
  createPlatformPool,
  createRecordedApp,
  createTestApp,
  merchantInput,
  orderInput,
  serviceInput,
  type TestApp,
  testLogs,
} from './support/test-app.js';

/**
 * Creates that meet another transaction's locks, on a real MariaDB: a key
 * whose row another instance's transaction holds, a lost lock wait and a lost
 * deadlock. This file's app gives up a lock wait after a second (its
 * sessions' innodb_lock_wait_timeout), well inside its 5 s query bound.
 */

const IN_FLIGHT =
  'a request with this Idempotency-Key is still being carried out, try again shortly';
const CONFLICT =
  'the database gave this write up for a conflicting one (deadlock or lock wait), try again shortly';

let t: TestApp;
let pool: Pool;
let app: Express;
let serviceId: number;
let merchantId: number;
let holder: mysql.Connection;

beforeAll(async () => {
  t = await createTestApp();
  pool = await createPlatformPool(t.settings);
  pool.pool.on('connection', (conn) => conn.query('SET SESSION innodb_lock_wait_timeout = 1'));
  app = createRecordedApp({
    pool,
    logger: testLogs('lock-conflicts').logger,
    insertConcurrency: 1,
  });
});
afterAll(async () => {
  await pool.end();
  await t.close();
});
beforeEach(async () => {
  await t.reset();
  merchantId = await addMerchant(t.app);
  serviceId = await addService(t.app, merchantId);
  holder = await mysql.createConnection({ ...t.settings, multipleStatements: true });
});
afterEach(async () => {
  await holder.query('ROLLBACK');
  await holder.end();
});

const order = (name: string) => ({ ...orderInput, service_id: serviceId, user_name: name });
const timed = async <T>(work: Promise<T>) => {
  const began = performance.now();
  const result = await work;
  return { result, ms: performance.now() - began };
};

async function ordersNamed(prefix: string): Promise<number> {
  const [rows] = await t.pool.query<RowDataPacket[]>(
    'SELECT COUNT(*) AS n FROM orders WHERE user_name LIKE ?',
    [`${prefix}%`],
  );
  return rows[0]?.n as number;
}

/** Resolves once some transaction waits for a lock (the app's, here). */
async function someoneWaits(): Promise<void> {
  for (const began = Date.now(); Date.now() - began < 3000; ) {
    const [rows] = await t.pool.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'",
    );
    if (Number(rows[0]?.n) > 0) return;
    // InnoDB refreshes INNODB_TRX only when it was last read over 0.1 s ago.
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error('no transaction waits for a lock');
}

describe('a key in flight on another instance', () => {
  it('answers 409 with Retry-After: 1 at once, and the orders sharing its INSERT are written meanwhile', async () => {
    // Another instance's transaction, between writing the key and its commit.
    await holder.query(
      `START TRANSACTION;
       INSERT INTO idempotency_keys (resource, idempotency_key, request_hash, row_id, expires_at)
       VALUES ('order', 'held-key', REPEAT('x', 32), 1, NOW(3) + INTERVAL 1 DAY)`,
    );
    const plain = (i: number) =>
      request(app)
        .post('/api/order/create')
        .send(order(`plain-${i}`));
    const { result, ms } = await timed(
      Promise.all([
        plain(0),
        request(app)
          .post('/api/order/create')
          .set('Idempotency-Key', 'held-key')
          .send(order('keyed')),
        ...Array.from({ length: 10 }, (_, i) => plain(i + 1)),
      ]),
    );
    const [first, keyed, ...rest] = result;
    expect(keyed?.status).toBe(409);
    expect(keyed?.headers['retry-after']).toBe('1');
    expect(keyed?.body).toEqual({ code: 409, message: '创建定单失败', error: IN_FLIGHT });
    for (const res of [first, ...rest]) expect(res?.body.code, JSON.stringify(res?.body)).toBe(200);
    expect(ms).toBeLessThan(900);
    expect(await ordersNamed('plain-')).toBe(11);
    expect(await ordersNamed('keyed')).toBe(0);

    // Once that transaction ends without the key, the retry is carried out afresh.
    await holder.query('ROLLBACK');
    const retry = await request(app)
      .post('/api/order/create')
      .set('Idempotency-Key', 'held-key')
      .send(order('keyed'));
    expect(retry.body.code).toBe(200);
    expect(await ordersNamed('keyed')).toBe(1);
  });
});

describe('a create that loses a lock wait', () => {
  it('meets the held service at once, waits for it once on its own, then is answered code 503 with Retry-After in its envelope, nothing written', async () => {
    await holder.query('START TRANSACTION; SELECT * FROM services WHERE id = ? FOR UPDATE', [
      serviceId,
    ]);
    const { result: res, ms } = await timed(
      request(app).post('/api/order/create').send(order('waited')),
    );
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({ code: 503, message: '创建定单失败', error: CONFLICT });
    // A try that waits for no lock, then one wait of a second (this file's lock wait).
    expect(ms).toBeGreaterThan(950);
    expect(ms).toBeLessThan(1900);
    expect(await ordersNamed('waited')).toBe(0);
  });

  it('goes through when the lock is released while it waits', async () => {
    await holder.query('START TRANSACTION; SELECT * FROM merchants WHERE id = ? FOR UPDATE', [
      merchantId,
    ]);
    setTimeout(() => void holder.query('ROLLBACK'), 500);
    const res = await request(app)
      .post('/api/service/add')
      .set('Idempotency-Key', 'service-after-wait')
      .send({ ...serviceInput, merchant_id: merchantId });
    expect(res.body).toEqual({
      code: 200,
      message: '新增服务成功',
      data: { id: expect.any(Number) },
    });
  });

  it('answers a keyed merchant add the same way when its key stays locked', async () => {
    await holder.query(
      `START TRANSACTION;
       INSERT INTO idempotency_keys (resource, idempotency_key, request_hash, row_id, expires_at)
       VALUES ('merchant', 'held-merchant', REPEAT('x', 32), 1, NOW(3) + INTERVAL 1 DAY)`,
    );
    const { result: res, ms } = await timed(
      request(app)
        .post('/api/merchant/add')
        .set('Idempotency-Key', 'held-merchant')
        .send(merchantInput),
    );
    expect(res.status).toBe(409);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({ code: 409, message: '添加失败', data: IN_FLIGHT });
    expect(ms).toBeLessThan(900);
  });
});

describe('a create that loses a deadlock', () => {
  it('is tried once more and written once', async () => {
    // The other transaction has written more, so InnoDB rolls back the create's;
    // its lock on a missing key holds the gap the create's key goes into.
    await holder.query(
      `START TRANSACTION;
       INSERT INTO merchants (name, address, phone) VALUES ${Array(50).fill("('heavy', 'a', '1')").join(', ')};
       SELECT * FROM idempotency_keys WHERE resource = 'order' AND idempotency_key = 'deadlocked-key-0' FOR UPDATE`,
    );
    const create = request(app)
      .post('/api/order/create')
      .set('Idempotency-Key', 'deadlocked-key')
      .send(order('deadlocked'))
      .then((res) => res);
    // The create has written its order and waits to write its key: locking
    // every order closes the circle.
    await someoneWaits();
    await holder.query('SELECT id FROM orders FOR UPDATE');
    await holder.query('ROLLBACK');
    const res = await create;
    expect(res.body).toEqual({
      code: 200,
      message: '创建定单成功',
      data: { id: expect.any(Number) },
    });
    expect(await ordersNamed('deadlocked')).toBe(1);
  });
});
