import type { Pool, RowDataPacket } from '@svc/common';
import { rawClient } from '@svc/test-kit';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keptKeys as keyStore } from '../src/idempotency/kept-keys.js';
import { platformDatabase } from '../src/store/database.js';
import {
  addMerchant,
  addService,
  createPlatformPool,
  createRecordedApp,
  createTestApp,
  execute,
  merchantInput,
  orderInput,
  serviceInput,
  type TestApp,
  testLogs,
} from './support/test-app.js';

const REUSED = 'Idempotency-Key was used with a different request';
const MALFORMED =
  'Idempotency-Key must be 1 to 255 visible ASCII characters (! to ~), optionally in double quotes, sent once';
const IN_FLIGHT =
  'a request with this Idempotency-Key is still being carried out, try again shortly';

let t: TestApp;
let merchantId: number;
let serviceId: number;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.reset();
  await execute(t.pool, 'DELETE FROM idempotency_keys');
  merchantId = await addMerchant(t.app);
  serviceId = await addService(t.app, merchantId);
});

let unique = 0;
const newKey = () => `key-${Date.now()}-${++unique}`;

async function keptKeys(): Promise<RowDataPacket[]> {
  const [rows] = await t.pool.query<RowDataPacket[]>(
    `SELECT resource, CAST(idempotency_key AS CHAR) AS idempotency_key, row_id,
            TIMESTAMPDIFF(SECOND, NOW(3), expires_at) AS seconds_left
     FROM idempotency_keys ORDER BY resource, idempotency_key`,
  );
  return rows;
}

/** Each create route, the table it writes, the body it takes and its envelope. */
const routes = () => [
  {
    path: '/api/merchant/add',
    table: 'merchants',
    resource: 'merchant',
    body: { ...merchantInput },
    other: { ...merchantInput, name: '李四家政' },
    success: '添加成功',
    failure: (code: number, text: string) => ({ code, message: '添加失败', data: text }),
  },
  {
    path: '/api/service/add',
    table: 'services',
    resource: 'service',
    body: { ...serviceInput, merchant_id: merchantId },
    other: { ...serviceInput, merchant_id: merchantId, price: '151' },
    success: '新增服务成功',
    failure: (code: number, text: string) => ({ code, message: '新增服务失败', data: text }),
  },
  ...['/api/order/create', '/api/order/add', '/order/add'].map((path) => ({
    path,
    table: 'orders',
    resource: 'order',
    body: { ...orderInput, service_id: serviceId },
    other: { ...orderInput, service_id: serviceId, user_name: '王五' },
    success: '创建定单成功',
    failure: (code: number, text: string) => ({ code, message: '创建定单失败', error: text }),
  })),
];

async function rowsIn(table: string): Promise<number> {
  const [[row]] = await t.pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM ??', [table]);
  return Number(row?.n);
}

describe.each([0, 1, 2, 3, 4])('the create route #%i with an Idempotency-Key', (index) => {
  const route = () => routes()[index]!;

  it('writes once and answers a retry with the same body as it answered the first, marked replayed', async () => {
    const { path, table, body, success, resource } = route();
    const before = await rowsIn(table);
    const key = newKey();
    const first = await request(t.app).post(path).set('Idempotency-Key', key).send(body);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ code: 200, message: success, data: { id: expect.any(Number) } });
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const retry = await request(t.app).post(path).set('Idempotency-Key', key).send(body);
    expect(retry.status).toBe(200);
    expect(retry.text).toBe(first.text);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await rowsIn(table)).toBe(before + 1);
    expect(await keptKeys()).toEqual([
      {
        resource,
        idempotency_key: key,
        row_id: first.body.data.id,
        seconds_left: expect.any(Number),
      },
    ]);
    expect((await keptKeys())[0]?.seconds_left).toBeGreaterThan(86_400 - 60);
  });

  it('treats a body with other spacing and key order as the same request', async () => {
    const { path, table, body } = route();
    const before = await rowsIn(table);
    const key = newKey();
    const first = await request(t.app).post(path).set('Idempotency-Key', key).send(body);
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 3);
    const retry = await request(t.app)
      .post(path)
      .set('Idempotency-Key', key)
      .set('Content-Type', 'application/json')
      .send(reordered);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await rowsIn(table)).toBe(before + 1);
  });

  it('answers 422 in its envelope, and writes nothing, when the key comes back with another body', async () => {
    const { path, table, body, other, failure } = route();
    const key = newKey();
    await request(t.app).post(path).set('Idempotency-Key', key).send(body);
    const before = await rowsIn(table);
    const res = await request(t.app).post(path).set('Idempotency-Key', key).send(other);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(failure(422, REUSED));
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await rowsIn(table)).toBe(before);
    expect(await keptKeys()).toHaveLength(1);
  });

  it.each([
    ['empty', ''],
    ['an empty quoted string', '""'],
    ['256 characters', 'k'.repeat(256)],
    ['a quoted key of 256 characters', `"${'k'.repeat(256)}"`],
    ['a space', 'a b'],
    ['a tab', 'a\tb'],
    ['a character past ASCII', 'clé'],
    ['a quote at the start only', '"abc'],
    ['a quote at the end only', 'abc"'],
    ['a quote inside quotes', '"a"b"'],
    ['a backslash inside quotes', '"a\\b"'],
  ])(
    'refuses a key that is %s: code 400 at HTTP 200, naming the header, nothing written',
    async (_name, key) => {
      const { path, table, body, failure } = route();
      const client = await rawClient(t.app);
      try {
        const before = await rowsIn(table);
        const res = await client.send({
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
          body: Buffer.from(JSON.stringify(body)),
        });
        expect(res.status).toBe(200);
        expect(JSON.parse(res.text)).toEqual(failure(400, MALFORMED));
        expect(await rowsIn(table)).toBe(before);
        expect(await keptKeys()).toEqual([]);
      } finally {
        await client.close();
      }
    },
  );

  it('refuses the header sent twice, even with one key', async () => {
    const { path, table, body, failure } = route();
    const client = await rawClient(t.app);
    try {
      const before = await rowsIn(table);
      const res = await client.send({
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'idempotency-key': ['k-1', 'k-1'] },
        body: Buffer.from(JSON.stringify(body)),
      });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toEqual(failure(400, MALFORMED));
      expect(await rowsIn(table)).toBe(before);
    } finally {
      await client.close();
    }
  });

  it('takes the quoted form as the key inside the quotes, and 255 characters', async () => {
    const { path, body } = route();
    const key = `${'k'.repeat(250)}-${unique++}`.slice(0, 255);
    const first = await request(t.app).post(path).set('Idempotency-Key', `"${key}"`).send(body);
    expect(first.body.code).toBe(200);
    const retry = await request(t.app).post(path).set('Idempotency-Key', key).send(body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect((await keptKeys()).map((row) => row.idempotency_key)).toEqual([key]);
  });
});

describe('Idempotency-Key spaces', () => {
  it('shares one key space between the order create and its aliases', async () => {
    const key = newKey();
    const body = { ...orderInput, service_id: serviceId };
    const first = await request(t.app)
      .post('/api/order/create')
      .set('Idempotency-Key', key)
      .send(body);
    for (const path of ['/api/order/add', '/order/add']) {
      const res = await request(t.app).post(path).set('Idempotency-Key', key).send(body);
      expect(res.body).toEqual(first.body);
      expect(res.headers['idempotent-replayed']).toBe('true');
    }
    expect(await rowsIn('orders')).toBe(1);
  });

  it('keeps one key space per resource: the same key on two resources names two requests', async () => {
    const key = newKey();
    const merchant = await request(t.app)
      .post('/api/merchant/add')
      .set('Idempotency-Key', key)
      .send(merchantInput);
    const order = await request(t.app)
      .post('/api/order/create')
      .set('Idempotency-Key', key)
      .send({ ...orderInput, service_id: serviceId });
    expect([merchant.headers['idempotent-replayed'], order.headers['idempotent-replayed']]).toEqual(
      [undefined, undefined],
    );
    expect((await keptKeys()).map((row) => [row.resource, row.row_id])).toEqual([
      ['merchant', merchant.body.data.id],
      ['order', order.body.data.id],
    ]);
  });

  it('creates as before without the header, keeping no key', async () => {
    const body = { ...orderInput, service_id: serviceId };
    const first = await request(t.app).post('/api/order/create').send(body);
    const second = await request(t.app).post('/api/order/create').send(body);
    expect(second.body.data.id).not.toBe(first.body.data.id);
    expect(await rowsIn('orders')).toBe(2);
    expect(await keptKeys()).toEqual([]);
  });
});

describe('a keyed create that writes nothing', () => {
  it('leaves no trace of its key: the retry is carried out afresh', async () => {
    const key = newKey();
    const missing = serviceId + 1000;
    const body = { ...orderInput, service_id: missing };
    const failed = await request(t.app)
      .post('/api/order/create')
      .set('Idempotency-Key', key)
      .send(body);
    expect(failed.body).toEqual({
      code: 500,
      message: '创建定单失败',
      error: `service ${missing} does not exist`,
    });
    expect(await keptKeys()).toEqual([]);

    await execute(
      t.pool,
      "INSERT INTO services (id, merchant_id, name, price, category) VALUES (?, ?, '维修', '10.00', '维修')",
      [missing, merchantId],
    );
    const retry = await request(t.app)
      .post('/api/order/create')
      .set('Idempotency-Key', key)
      .send(body);
    expect(retry.body).toEqual({
      code: 200,
      message: '创建定单成功',
      data: { id: expect.any(Number) },
    });
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await keptKeys()).toEqual([
      expect.objectContaining({ resource: 'order', row_id: retry.body.data.id }),
    ]);
  });

  it('leaves no key when its body fails validation', async () => {
    const key = newKey();
    const res = await request(t.app)
      .post('/api/merchant/add')
      .set('Idempotency-Key', key)
      .send({ name: '张三家政' });
    expect(res.body.code).toBe(400);
    expect(await keptKeys()).toEqual([]);
  });
});

/**
 * Holds the service row with a lock, so every order for it waits in MySQL
 * (the foreign key check) until `release`: a create caught in flight.
 */
async function holdService(pool: Pool, id: number) {
  const conn = await pool.getConnection();
  await conn.query('START TRANSACTION');
  await conn.query('SELECT id FROM services WHERE id = ? FOR UPDATE', [id]);
  return async () => {
    await conn.query('COMMIT');
    conn.release();
  };
}

/** Until `check` holds, or fails after two seconds. */
async function until(check: () => Promise<boolean>) {
  for (const started = Date.now(); !(await check()); ) {
    if (Date.now() - started > 2000) throw new Error('condition not met in 2 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Order inserts MySQL shows waiting for a lock. */
async function waitingInserts(pool: Pool): Promise<number> {
  const [rows] = await pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'INSERT INTO orders%'",
  );
  return Number(rows[0]?.n);
}

describe('a key whose first request is still in flight', () => {
  it('answers 409 with Retry-After in the route envelope, writing nothing; once done, the key replays', async () => {
    const key = newKey();
    const body = { ...orderInput, service_id: serviceId };
    const release = await holdService(t.pool, serviceId);
    let first: Promise<request.Response>;
    try {
      first = request(t.app)
        .post('/api/order/create')
        .set('Idempotency-Key', key)
        .send(body)
        .then();
      await until(async () => (await waitingInserts(t.pool)) === 1);
      for (const path of ['/api/order/create', '/order/add']) {
        // A second request that waited for the lock instead would time out here.
        const second = await request(t.app)
          .post(path)
          .set('Idempotency-Key', key)
          .timeout(2000)
          .send(body);
        expect(second.status).toBe(409);
        expect(second.headers['retry-after']).toBe('1');
        expect(second.body).toEqual({ code: 409, message: '创建定单失败', error: IN_FLIGHT });
      }
    } finally {
      await release();
    }
    const done = await first;
    expect(done.body).toEqual({
      code: 200,
      message: '创建定单成功',
      data: { id: expect.any(Number) },
    });
    const later = await request(t.app)
      .post('/api/order/create')
      .set('Idempotency-Key', key)
      .send(body);
    expect(later.body).toEqual(done.body);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(await rowsIn('orders')).toBe(1);
  });

  it('writes one row for many requests at once with one key', async () => {
    const key = newKey();
    const body = { ...orderInput, service_id: serviceId };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(t.app).post('/api/order/create').set('Idempotency-Key', key).send(body),
      ),
    );
    const fresh = answers.filter(
      (res) => res.status === 200 && !res.headers['idempotent-replayed'],
    );
    const replayed = answers.filter((res) => res.headers['idempotent-replayed'] === 'true');
    const refused = answers.filter((res) => res.status === 409);
    expect(fresh).toHaveLength(1);
    expect(fresh.length + replayed.length + refused.length).toBe(20);
    for (const res of replayed) expect(res.body).toEqual(fresh[0]?.body);
    expect(await rowsIn('orders')).toBe(1);
  });
});

describe('two instances on one database', () => {
  let other: Express;
  let otherPool: Pool;
  beforeAll(async () => {
    otherPool = await createPlatformPool(t.settings);
    other = createRecordedApp({ pool: otherPool, logger: testLogs('second-instance').logger });
  });
  afterAll(async () => {
    await otherPool.end();
  });

  it('replays on one instance what the other wrote, and refuses another body there', async () => {
    const key = newKey();
    const body = { ...merchantInput };
    const first = await request(t.app)
      .post('/api/merchant/add')
      .set('Idempotency-Key', key)
      .send(body);
    const replay = await request(other)
      .post('/api/merchant/add')
      .set('Idempotency-Key', key)
      .send(body);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const reused = await request(other)
      .post('/api/merchant/add')
      .set('Idempotency-Key', key)
      .send({ ...body, phone: '1' });
    expect(reused.status).toBe(422);
  });

  it('writes one row when both take the same key at the same moment: the second replays the first, or answers 409 while it is in flight', async () => {
    const key = newKey();
    const body = { ...orderInput, service_id: serviceId };
    const release = await holdService(t.pool, serviceId);
    const send = (app: Express) =>
      request(app).post('/api/order/create').set('Idempotency-Key', key).send(body).then();
    const both = [send(t.app), send(other)];
    try {
      // The first to write the key waits for the service; the other meets the key held (409)
      // or, when both wrote it at the same instant, waits for the first's key row.
      await until(async () => (await waitingInserts(t.pool)) === 1);
    } finally {
      await release();
    }
    const answers = await Promise.all(both);
    const fresh = answers.filter(
      (res) => res.status === 200 && !res.headers['idempotent-replayed'],
    );
    expect(fresh).toHaveLength(1);
    // The other came once the first had committed (a replay) or while it had not (409, no wait).
    const second = answers.find((res) => res !== fresh[0]);
    if (second?.status === 409) {
      expect(second.headers['retry-after']).toBe('1');
    } else {
      expect(second?.headers['idempotent-replayed']).toBe('true');
      expect(second?.body).toEqual(fresh[0]?.body);
    }
    expect(await rowsIn('orders')).toBe(1);
    expect(await keptKeys()).toHaveLength(1);
  });
});

describe('orders sent together', () => {
  it('share statements with their keys: each answer names the row holding its own order, and each retry replays it', async () => {
    const names = Array.from({ length: 60 }, (_, i) => `用户${i}`);
    const keys = names.map(() => newKey());
    const send = () =>
      Promise.all(
        names.map((name, i) =>
          request(t.app)
            .post('/api/order/create')
            .set('Idempotency-Key', keys[i]!)
            .send({ ...orderInput, service_id: serviceId, user_name: name }),
        ),
      );
    const first = await send();
    const ids = first.map((res) => res.body.data.id as number);
    expect(new Set(ids).size).toBe(60);
    const [rows] = await t.pool.query<RowDataPacket[]>('SELECT id, user_name FROM orders');
    const nameOf = new Map(rows.map((row) => [row.id, row.user_name]));
    expect(ids.map((id) => nameOf.get(id))).toEqual(names);
    expect(new Map((await keptKeys()).map((row) => [row.idempotency_key, row.row_id]))).toEqual(
      new Map(keys.map((key, i) => [key, ids[i]])),
    );

    const again = await send();
    expect(again.map((res) => res.body.data.id)).toEqual(ids);
    expect(again.every((res) => res.headers['idempotent-replayed'] === 'true')).toBe(true);
    expect(await rowsIn('orders')).toBe(60);
  });

  it('writes the others when one of them brings a key kept already', async () => {
    const kept = newKey();
    const body = { ...orderInput, service_id: serviceId };
    const original = await request(t.app)
      .post('/api/order/create')
      .set('Idempotency-Key', kept)
      .send(body);
    const keys = Array.from({ length: 30 }, (_, i) => (i === 15 ? kept : newKey()));
    const answers = await Promise.all(
      keys.map((key) =>
        request(t.app).post('/api/order/create').set('Idempotency-Key', key).send(body),
      ),
    );
    expect(answers[15]?.body).toEqual(original.body);
    expect(answers[15]?.headers['idempotent-replayed']).toBe('true');
    expect(answers.filter((res) => res.headers['idempotent-replayed']).length).toBe(1);
    expect(new Set(answers.map((res) => res.body.data.id)).size).toBe(30);
    expect(await rowsIn('orders')).toBe(30);
  });
});

describe('expiry', () => {
  let shortLived: Express;
  beforeAll(() => {
    shortLived = createRecordedApp({
      pool: t.pool,
      logger: testLogs('short-keys').logger,
      idempotencyTtlSeconds: 1,
    });
  });

  it('frees a key once its time has passed: the same request then writes a new row', async () => {
    const key = newKey();
    const body = { ...orderInput, service_id: serviceId };
    const first = await request(shortLived)
      .post('/api/order/create')
      .set('Idempotency-Key', key)
      .send(body);
    const soon = await request(shortLived)
      .post('/api/order/create')
      .set('Idempotency-Key', key)
      .send(body);
    expect(soon.headers['idempotent-replayed']).toBe('true');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = await request(shortLived)
      .post('/api/order/create')
      .set('Idempotency-Key', key)
      .send(body);
    expect(later.body.code).toBe(200);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.data.id).not.toBe(first.body.data.id);
    expect(await keptKeys()).toEqual([
      expect.objectContaining({ idempotency_key: key, row_id: later.body.data.id }),
    ]);
  });

  it('sweeps expired keys out of the table and leaves live ones', async () => {
    const body = { ...orderInput, service_id: serviceId };
    for (let i = 0; i < 3; i++) {
      await request(shortLived)
        .post('/api/order/create')
        .set('Idempotency-Key', newKey())
        .send(body);
    }
    const live = newKey();
    await request(t.app).post('/api/order/create').set('Idempotency-Key', live).send(body);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const keys = keyStore(platformDatabase(t.pool), 1);
    expect(await keys.sweep()).toBe(3);
    expect((await keptKeys()).map((row) => row.idempotency_key)).toEqual([live]);
    expect(await rowsIn('orders')).toBe(4);
  });
});

describe('CORS for keyed creates', () => {
  it('allows the Idempotency-Key header in a preflight', async () => {
    const res = await request(t.app)
      .options('/api/order/create')
      .set('Origin', 'https://shop.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type, idempotency-key');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']?.split(/,\s*/)).toContain('idempotency-key');
  });

  it('lets scripts read Idempotent-Replayed and Retry-After', async () => {
    const res = await request(t.app)
      .post('/api/order/create')
      .set('Origin', 'https://shop.example')
      .set('Idempotency-Key', newKey())
      .send({ ...orderInput, service_id: serviceId });
    expect(res.headers['access-control-expose-headers']?.split(',')).toEqual(
      expect.arrayContaining(['Idempotent-Replayed', 'Retry-After', 'X-Request-Id']),
    );
  });
});
