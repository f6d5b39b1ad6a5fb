import { randomUUID } from 'node:crypto';
import { migrate, type Pool, type RowDataPacket } from '@svc/common';
import {
  createTestDatabase,
  type FaultProxy,
  startFaultProxy,
  startMariaDbServer,
} from '@svc/test-kit';
import type { Express } from 'express';
import mysql from 'mysql2/promise';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OUTCOME_UNKNOWN } from '../src/http/messages.js';
import { migrationsDir } from '../src/migrations-dir.js';
import {
  addMerchant,
  addOrder,
  addService,
  createPlatformPool,
  createRecordedApp,
  createTestApp,
  execute,
  type TestApp,
  testLogs,
} from './support/test-app.js';

/*
 * Every write route against each fault point, on a real MariaDB: the app's
 * pool reaches it through a TCP fault proxy (a request cut before it reached
 * the server, or its answer lost after the server did it), and rows are held
 * from another connection (a lock wait past the service's bound). For each:
 * the answer, then the rows, then a retry; the answer and the stored state
 * agree every time. The answers: done (code 200), failed (nothing written),
 * or unknown (503 saying so; it may have been written).
 */

const QUERY_TIMEOUT_MS = 2000;
/** Longer than the service's bound on a statement (and so than the server's lock wait, half of it). */
const HOLD_MS = QUERY_TIMEOUT_MS + 500;

type Outcome = 'done' | 'failed' | 'unknown';

function outcomeOf(res: request.Response): Outcome {
  if (res.body?.code === 200) return 'done';
  const text = JSON.stringify(res.body);
  if (text.includes(OUTCOME_UNKNOWN)) {
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    return 'unknown';
  }
  return 'failed';
}

interface Target {
  id: number;
  /** The Idempotency-Key of a keyed create. */
  key?: string;
  /** A name no other case uses, so a create's rows are its own. */
  name: string;
}

/** One write route, as the fault cases drive it. */
interface WriteRoute {
  name: string;
  /** Rows the route works on, written directly. */
  setUp(t: TestApp): Promise<Target>;
  send(app: Express, target: Target): request.Test;
  /** Text of the SQL that carries the write out (what a fault waits for). */
  writes: (target: Target) => string;
  /** The write is a prepared statement: a fault meets its execution, after the text. */
  prepared?: true;
  /** Takes, on `holder`, the lock the write must wait for. */
  hold(holder: mysql.Connection, target: Target): Promise<unknown>;
  /** How many times the write is in the store (a create's rows, a change's events). */
  effects(pool: Pool, target: Target): Promise<number>;
  /** Whether a retry after an unknown outcome writes nothing twice (a keyed create, a change). */
  settledByRetry: boolean;
  /** A keyed create: its resource's key space and the table of its row, where a deadlock can close. */
  keyed?: { resource: string; table: string };
}

async function count(pool: Pool, sql: string, values: unknown[]): Promise<number> {
  const [rows] = await pool.query<RowDataPacket[]>(sql, values);
  return Number(rows[0]?.n);
}

const named = (table: string, column: string) => (pool: Pool, target: Target) =>
  count(pool, `SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ?`, [target.name]);

const eventsOf = (type: string) => (pool: Pool, target: Target) =>
  count(pool, 'SELECT COUNT(*) AS n FROM events WHERE type = ? AND row_id = ?', [type, target.id]);

const holdRow = (table: string) => (holder: mysql.Connection, target: Target) =>
  holder.query(`START TRANSACTION; SELECT * FROM ${table} WHERE id = ? FOR UPDATE`, [target.id]);

/** Every row and the gap after them, at REPEATABLE READ: an INSERT into the table waits. */
const holdTable = (table: string) => (holder: mysql.Connection) =>
  holder.query(`START TRANSACTION; SELECT * FROM ${table} FOR UPDATE`);

const uniqueName = () => `f${randomUUID().slice(0, 8)}`;

const serviceFor = async (t: TestApp): Promise<Target> => ({
  id: await addService(t.app, await addMerchant(t.app)),
  name: uniqueName(),
});

const orderCreate = (keyed: boolean): WriteRoute => ({
  name: keyed ? 'order create with a key' : 'order create',
  setUp: async (t) => ({ ...(await serviceFor(t)), key: keyed ? randomUUID() : undefined }),
  send(app, target) {
    const req = request(app).post('/api/order/create');
    if (target.key) req.set('Idempotency-Key', target.key);
    return req.send({ service_id: target.id, user_name: target.name, user_phone: '13912345678' });
  },
  writes: () => 'INSERT INTO orders',
  hold: holdRow('services'),
  effects: named('orders', 'user_name'),
  settledByRetry: keyed,
  keyed: keyed ? { resource: 'order', table: 'orders' } : undefined,
});

const statusChange = (
  name: string,
  table: string,
  path: string,
  event: string,
  setUp: (t: TestApp) => Promise<number>,
): WriteRoute => ({
  name,
  setUp: async (t) => ({ id: await setUp(t), name: uniqueName() }),
  send: (app, target) => request(app).put(`${path}/${target.id}`),
  writes: (target) => `SELECT 1 FROM ${table} WHERE id = ${target.id} FOR UPDATE`,
  hold: holdRow(table),
  effects: eventsOf(event),
  settledByRetry: true,
});

const newService = async (t: TestApp) => addService(t.app, await addMerchant(t.app));

const ROUTES: WriteRoute[] = [
  orderCreate(false),
  orderCreate(true),
  statusChange('order complete', 'orders', '/api/order/complete', 'order.completed', async (t) =>
    addOrder(t.app, await newService(t)),
  ),
  {
    name: 'merchant add with a key',
    setUp: async () => ({ id: 0, name: uniqueName(), key: randomUUID() }),
    send: (app, target) =>
      request(app)
        .post('/api/merchant/add')
        .set('Idempotency-Key', target.key as string)
        .send({ name: target.name, address: '北京市朝阳区1号', phone: '13800138000' }),
    writes: () => 'INSERT INTO merchants',
    hold: holdTable('merchants'),
    effects: named('merchants', 'name'),
    settledByRetry: true,
    keyed: { resource: 'merchant', table: 'merchants' },
  },
  statusChange('merchant approve', 'merchants', '/api/merchant/approve', 'merchant.approved', (t) =>
    addMerchant(t.app),
  ),
  {
    name: 'service add with a key',
    setUp: async (t) => ({ id: await addMerchant(t.app), name: uniqueName(), key: randomUUID() }),
    send: (app, target) =>
      request(app)
        .post('/api/service/add')
        .set('Idempotency-Key', target.key as string)
        .send({
          merchant_id: target.id,
          name: target.name,
          price: 150,
          category: '保洁',
          stock: 5,
        }),
    writes: () => 'INSERT INTO services',
    hold: holdRow('merchants'),
    effects: named('services', 'name'),
    settledByRetry: true,
    keyed: { resource: 'service', table: 'services' },
  },
  statusChange(
    'service publish',
    'services',
    '/api/service/publish',
    'service.published',
    newService,
  ),
  statusChange(
    'service unpublish',
    'services',
    '/api/service/unpublish',
    'service.unpublished',
    async (t) => {
      const id = await newService(t);
      await execute(t.pool, 'UPDATE services SET status = 1 WHERE id = ?', [id]);
      return id;
    },
  ),
  {
    name: 'webhook add',
    setUp: async () => ({ id: 0, name: `http://127.0.0.1:9/${uniqueName()}` }),
    send: (app, target) => request(app).post('/api/webhooks').send({ url: target.name }),
    writes: () => 'INSERT INTO webhooks',
    prepared: true,
    hold: holdTable('webhooks'),
    effects: named('webhooks', 'url'),
    settledByRetry: false,
  },
  {
    name: 'webhook delete',
    setUp: async (t) => {
      const url = `https://${uniqueName()}.example/hook`;
      const { insertId } = await execute(
        t.pool,
        "INSERT INTO webhooks (url, secret) VALUES (?, 'whsec_x')",
        [url],
      );
      return { id: insertId, name: url };
    },
    send: (app, target) => request(app).delete(`/api/webhooks/${target.id}`),
    writes: () => 'DELETE FROM webhooks',
    prepared: true,
    hold: holdRow('webhooks'),
    // Deleted once: the webhook is gone.
    effects: async (pool, target) => 1 - (await named('webhooks', 'url')(pool, target)),
    settledByRetry: true,
  },
  {
    name: 'webhook retry',
    setUp: async (t) => {
      const url = `https://${uniqueName()}.example/hook`;
      const { insertId: webhookId } = await execute(
        t.pool,
        "INSERT INTO webhooks (url, secret) VALUES (?, 'whsec_x')",
        [url],
      );
      const { insertId: seq } = await execute(
        t.pool,
        "INSERT INTO events (type, row_id, row_status) VALUES ('merchant.added', 1, 0)",
      );
      await execute(t.pool, 'UPDATE events SET id = seq + 1000000 WHERE seq = ?', [seq]);
      await execute(
        t.pool,
        "INSERT INTO webhook_deliveries (webhook_id, event_id, status, attempts) VALUES (?, ?, 'failed', 8)",
        [webhookId, seq + 1_000_000],
      );
      return { id: webhookId, name: url };
    },
    send: (app, target) => request(app).post(`/api/webhooks/${target.id}/retry`),
    writes: () => "UPDATE webhook_deliveries SET status = 'pending'",
    prepared: true,
    hold: (holder, target) =>
      holder.query(
        'START TRANSACTION; SELECT * FROM webhook_deliveries WHERE webhook_id = ? FOR UPDATE',
        [target.id],
      ),
    effects: (pool, target) =>
      count(
        pool,
        "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending'",
        [target.id],
      ),
    settledByRetry: true,
  },
];

let t: TestApp;
let proxy: FaultProxy;
let pool: Pool;
let app: Express;

beforeAll(async () => {
  t = await createTestApp();
  proxy = await startFaultProxy({ target: t.settings });
});
afterAll(async () => {
  await proxy.close();
  await t.close();
});
// A pool of new connections each time, so a prepared write is prepared again, in text.
beforeEach(async () => {
  pool = await createPlatformPool({
    ...t.settings,
    host: proxy.host,
    port: proxy.port,
    queryTimeoutMs: QUERY_TIMEOUT_MS,
  });
  app = createRecordedApp({
    pool,
    logger: testLogs('fault-points').logger,
    queryTimeoutMs: QUERY_TIMEOUT_MS,
    webhooksAllowPrivate: true,
  });
});
afterEach(async () => {
  await pool.end();
});

/** A retry until the route answers done (a retry of a change made already is done too). */
async function retried(route: WriteRoute, target: Target): Promise<request.Response> {
  const res = await route.send(app, target);
  if (route.name === 'webhook delete' && res.status === 404) return res;
  expect(outcomeOf(res), JSON.stringify(res.body)).toBe('done');
  return res;
}

/** The effect of a retry after `first`: once, whatever the first did, when the route settles. */
async function expectRetryAgrees(route: WriteRoute, target: Target, first: request.Response) {
  const before = await route.effects(t.pool, target);
  const again = await retried(route, target);
  const after = await route.effects(t.pool, target);
  if (route.settledByRetry) {
    expect(after).toBe(1);
    // A keyed create that was done is replayed: the same row, nothing new.
    if (target.key && outcomeOf(first) === 'done') expect(again.body).toEqual(first.body);
  } else expect(after).toBe(before + 1);
}

async function withHolder<T>(work: (holder: mysql.Connection) => Promise<T>): Promise<T> {
  const holder = await mysql.createConnection({ ...t.settings, multipleStatements: true });
  try {
    return await work(holder);
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end().catch(() => undefined);
  }
}

describe.each(ROUTES.map((route) => [route.name, route] as const))('%s', (_name, route) => {
  it('lock wait past the timeout: failed, and nothing is written once the lock goes', async () => {
    const target = await route.setUp(t);
    const res = await withHolder(async (holder) => {
      await route.hold(holder, target);
      const began = performance.now();
      const answer = await route.send(app, target);
      expect(outcomeOf(answer), JSON.stringify(answer.body)).toBe('failed');
      // The server gave the wait up, before the service's own bound.
      expect(performance.now() - began).toBeLessThan(HOLD_MS + 1000);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, HOLD_MS - (performance.now() - began))),
      );
      await holder.query('ROLLBACK');
      return answer;
    });
    // Whatever the server still had of it would commit now.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await route.effects(t.pool, target)).toBe(0);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    await retried(route, target);
    expect(await route.effects(t.pool, target)).toBe(1);
  });

  it("the service's own bound first (the server's lock wait longer): the statement is killed before the answer, and nothing is written", async () => {
    const target = await route.setUp(t);
    const slow = await createPlatformPool({ ...t.settings, queryTimeoutMs: 1000 });
    // After the pool's own settings: a server whose lock wait outlasts the service's bound.
    slow.pool.on('connection', (conn) => conn.query('SET innodb_lock_wait_timeout = 30'));
    const slowApp = createRecordedApp({
      pool: slow,
      logger: testLogs('fault-points').logger,
      queryTimeoutMs: 1000,
      webhooksAllowPrivate: true,
    });
    try {
      await withHolder(async (holder) => {
        await route.hold(holder, target);
        const res = await route.send(slowApp, target);
        // A transaction stopped before its COMMIT failed; a single statement commits as it
        // ends, so one stopped in its wait reads as unknown (the server says "interrupted"
        // also when the stop came just after its commit).
        expect(outcomeOf(res), JSON.stringify(res.body)).toBe(
          route.prepared ? 'unknown' : 'failed',
        );
        await holder.query('ROLLBACK');
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await route.effects(t.pool, target)).toBe(0);
    } finally {
      await slow.end();
    }
  });

  it('connection cut before the write reached the server: not done, nothing written, a retry does it once', async () => {
    const target = await route.setUp(t);
    const fault = proxy.fault(route.writes(target), 'cut-before', { next: route.prepared });
    const res = await route.send(app, target);
    await fault.met;
    expect(outcomeOf(res)).not.toBe('done');
    expect(await route.effects(t.pool, target)).toBe(0);
    await retried(route, target);
    expect(await route.effects(t.pool, target)).toBe(1);
  });

  it('connection cut after the write was sent, before its answer: never "failed", and a retry settles it', async () => {
    const target = await route.setUp(t);
    const fault = proxy.fault(route.writes(target), 'cut-after', { next: route.prepared });
    const res = await route.send(app, target);
    await fault.met;
    const outcome = outcomeOf(res);
    expect(outcome, JSON.stringify(res.body)).not.toBe('failed');
    expect(await route.effects(t.pool, target)).toBe(1);
    await expectRetryAgrees(route, target, res);
  });
});

/** Resolves once some transaction waits for a lock. */
async function someoneWaits(): Promise<void> {
  for (const began = Date.now(); Date.now() - began < 5000; ) {
    const waiting = await count(
      t.pool,
      "SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'",
      [],
    );
    if (waiting > 0) return;
    // InnoDB refreshes INNODB_TRX only when it was last read over 0.1 s ago.
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error('no transaction waits for a lock');
}

describe.each(ROUTES.filter((route) => route.keyed).map((route) => [route.name, route] as const))(
  '%s, in a deadlock',
  (_name, route) => {
    it('lost to another transaction: done once or failed with nothing written, and a retry settles it', async () => {
      const target = await route.setUp(t);
      const { resource, table } = route.keyed as { resource: string; table: string };
      await withHolder(async (holder) => {
        // A transaction that has written more (so InnoDB picks the create to roll back),
        // holding the gap of the key space where the create's key goes.
        await holder.query(
          `START TRANSACTION;
         INSERT INTO event_counter (name, last_id) VALUES ${Array.from({ length: 50 }, (_, i) => `('dl-${i}', 0)`).join(', ')};
         SELECT * FROM idempotency_keys WHERE resource = ? AND idempotency_key > ? FOR UPDATE`,
          [resource, ''],
        );
        const sent = route.send(app, target).then((res) => res);
        // The create waits to write its key: taking its rows closes the circle.
        await someoneWaits();
        await holder.query(`SELECT id FROM ${table} FOR UPDATE`);
        await holder.query('ROLLBACK');
        const res = await sent;
        const outcome = outcomeOf(res);
        expect(outcome, JSON.stringify(res.body)).not.toBe('unknown');
        expect(await route.effects(t.pool, target)).toBe(outcome === 'done' ? 1 : 0);
        await expectRetryAgrees(route, target, res);
      });
    });
  },
);

describe('one held row', () => {
  it('stalls only the create that needs it: creates for other services answer meanwhile', async () => {
    const held = await serviceFor(t);
    const other = await serviceFor(t);
    await withHolder(async (holder) => {
      await holdRow('services')(holder, held);
      const waiting = orderCreate(false)
        .send(app, held)
        .then((res) => res);
      await someoneWaits();
      const began = performance.now();
      const others = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          orderCreate(false).send(app, { ...other, name: `${other.name}-${i}` }),
        ),
      );
      expect(performance.now() - began).toBeLessThan(500);
      for (const res of others) expect(outcomeOf(res), JSON.stringify(res.body)).toBe('done');
      expect(outcomeOf(await waiting)).toBe('failed');
    });
  });

  it('a key whose create waits on another instance is 409 at once here', async () => {
    const held = { ...(await serviceFor(t)), key: randomUUID() };
    const otherInstance = createRecordedApp({
      pool: t.pool,
      logger: testLogs('fault-points').logger,
    });
    await withHolder(async (holder) => {
      await holdRow('services')(holder, held);
      const waiting = orderCreate(true)
        .send(app, held)
        .then((res) => res);
      await someoneWaits();
      const began = performance.now();
      const res = await orderCreate(true).send(otherInstance, held);
      expect(performance.now() - began).toBeLessThan(300);
      expect(res.status).toBe(409);
      expect(res.headers['retry-after']).toBe('1');
      await holder.query('ROLLBACK');
      expect(outcomeOf(await waiting)).toBe('done');
    });
    expect(await named('orders', 'user_name')(t.pool, held)).toBe(1);
  });
});

describe('the database restarted in the middle of a burst of keyed creates', () => {
  it('answers each as it was (done, failed or unknown), and retries with the keys write each order once', async () => {
    // Durable commits: what was answered done must outlive the crash.
    const server = await startMariaDbServer(['--innodb-flush-log-at-trx-commit=1']);
    const own = await createPlatformPool({
      ...(await createTestDatabase(server.url)).settings,
      connectTimeoutMs: 1000,
      queryTimeoutMs: QUERY_TIMEOUT_MS,
    });
    try {
      await migrate(own, migrationsDir);
      const ownApp = createRecordedApp({
        pool: own,
        logger: testLogs('fault-points').logger,
        queryTimeoutMs: QUERY_TIMEOUT_MS,
      });
      const service = { id: await addService(ownApp, await addMerchant(ownApp)), name: '' };
      // Enough that two INSERTs at once have not written them all before the kill lands.
      const targets = Array.from({ length: 400 }, (_, i) => ({
        ...service,
        name: `burst-${i}`,
        key: randomUUID(),
      }));
      const create = orderCreate(true);
      let answered = 0;
      let restarted: Promise<void> | undefined;
      const first = await Promise.all(
        targets.map((target) =>
          create.send(ownApp, target).then((res) => {
            answered += 1;
            // Killed as a crash would, while the rest of the burst is in flight.
            if (answered === 10) restarted = server.kill().then(() => server.start());
            return res;
          }),
        ),
      );
      await restarted;
      await expect
        .poll(
          () =>
            own.query('SELECT 1').then(
              () => true,
              () => false,
            ),
          { timeout: 20_000 },
        )
        .toBe(true);
      const outcomes = first.map(outcomeOf);
      expect(outcomes.filter((outcome) => outcome !== 'done').length).toBeGreaterThan(0);
      // Before any retry: a done create's order is there under its id, a failed one's is not.
      const [rows] = await own.query<RowDataPacket[]>(
        'SELECT k.idempotency_key AS k, o.id FROM idempotency_keys k JOIN orders o ON o.id = k.row_id',
      );
      const kept = new Map(rows.map((row) => [String(row.k), row.id as number]));
      for (const [i, target] of targets.entries()) {
        const res = first[i] as request.Response;
        if (outcomes[i] === 'done') expect(kept.get(target.key)).toBe(res.body.data.id);
        if (outcomes[i] === 'failed')
          expect(kept.has(target.key), JSON.stringify(res.body)).toBe(false);
      }
      for (const [i, target] of targets.entries()) {
        if (outcomes[i] === 'done') continue;
        const again = await create.send(ownApp, target);
        expect(outcomeOf(again), JSON.stringify(again.body)).toBe('done');
        if (kept.has(target.key)) expect(again.body.data.id).toBe(kept.get(target.key));
      }
      const [orders] = await own.query<RowDataPacket[]>(
        'SELECT user_name, COUNT(*) AS n FROM orders GROUP BY user_name HAVING n > 1',
      );
      expect(orders).toEqual([]);
      const [[total]] = await own.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM orders');
      expect(total?.n).toBe(targets.length);
    } finally {
      await own.end();
      await server.destroy();
    }
  });
});
