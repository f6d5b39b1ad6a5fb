import {
  createMysqlPool,
  MissingReferenceError,
  migrate,
  type Pool,
  StoreUnavailableError,
} from '@svc/common';
import { createTestDatabase, freePort, startMariaDbServer } from '@svc/test-kit';
import mysql from 'mysql2/promise';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keptKeys } from '../src/idempotency/kept-keys.js';
import type { RequestKey } from '../src/idempotency/key-rows.js';
import { migrationsDir } from '../src/migrations-dir.js';
import { type PlatformDatabase, platformDatabase } from '../src/store/database.js';
import { newRowEvents } from '../src/store/events/outbox.js';
import { newRowsAround } from '../src/store/new-rows.js';
import { type SharedInsertOptions, sharedInserts } from '../src/store/shared-inserts.js';
import {
  addMerchant,
  addService,
  createRecordedApp,
  createTestApp,
  orderInput,
  rowOf,
  type TestApp,
  testLogs,
} from './support/test-app.js';

const ORDER_COLUMNS = {
  table: 'orders',
  columns: ['service_id', 'user_name', 'user_phone'],
  maxWaiting: 320,
  maxWaitingAlone: 4,
};
let ORDERS: typeof ORDER_COLUMNS & Pick<SharedInsertOptions<RequestKey>, 'around'>;
const MISSING = 999_999;

let t: TestApp;
let serviceId: number;
beforeAll(async () => {
  t = await createTestApp();
  ORDERS = {
    ...ORDER_COLUMNS,
    around: newRowsAround(keptKeys(platformDatabase(t.pool), 60), {
      parent: { table: 'services', idAt: 0 },
      events: (count) => newRowEvents('order.created', count),
    }),
  };
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.reset();
  serviceId = await addService(t.app, await addMerchant(t.app));
});

/** The real database, with its multi-row INSERTs counted by the rows each held. */
function countedDatabase(pool: Pool) {
  const db = platformDatabase(pool);
  const statements: number[] = [];
  const insertRows = db.insertRows;
  const counted: PlatformDatabase = {
    ...db,
    insertRows: (sql, rows, around) => {
      statements.push(rows.length);
      return insertRows(sql, rows, around);
    },
  };
  return { db: counted, statements };
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `用户${i}`);
const row = (service: number, name: string) => [service, name, orderInput.user_phone];

/** Each id's row holds the name its caller sent. */
async function expectRowsOf(ids: number[], sent: string[]) {
  expect(new Set(ids).size).toBe(ids.length);
  for (const [i, id] of ids.entries()) {
    expect((await rowOf(t.pool, 'orders', id)).user_name).toBe(sent[i]);
  }
}

describe('sharedInserts', () => {
  it('writes a row that finds a statement free at once, and the rows that wait in one statement, each with its own id', async () => {
    const { db, statements } = countedDatabase(t.pool);
    const { insert } = sharedInserts(db, { ...ORDERS, concurrency: 1 });
    const sent = names(10);
    const ids = await Promise.all(sent.map((name) => insert(row(serviceId, name))));
    expect(statements).toEqual([1, 9]);
    await expectRowsOf(ids, sent);
  });

  it('never puts more than maxRows rows in one statement', async () => {
    const { db, statements } = countedDatabase(t.pool);
    const { insert } = sharedInserts(db, { ...ORDERS, concurrency: 2, maxRows: 4 });
    const sent = names(10);
    const ids = await Promise.all(sent.map((name) => insert(row(serviceId, name))));
    expect(statements).toEqual([1, 1, 4, 4]);
    await expectRowsOf(ids, sent);
  });

  it('refuses at once, as store-unavailable, a row beyond the rows that may wait', async () => {
    const { db, statements } = countedDatabase(t.pool);
    const { insert } = sharedInserts(db, { ...ORDERS, concurrency: 1, maxRows: 2, maxWaiting: 2 });
    const sent = names(5);
    const results = await Promise.allSettled(sent.map((name) => insert(row(serviceId, name))));
    // One running, two waiting; the fourth and fifth find the line full.
    expect(statements).toEqual([1, 2]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    for (const refused of results.slice(3)) {
      expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    }
    expect((await t.counts()).orders).toBe(3);
  });

  it('fails only the row that names a missing service; the others of its statement are written alone', async () => {
    const { db, statements } = countedDatabase(t.pool);
    const { insert } = sharedInserts(db, { ...ORDERS, concurrency: 1 });
    const services = [serviceId, serviceId, MISSING, serviceId];
    const sent = names(4);
    const results = await Promise.allSettled(
      services.map((service, i) => insert(row(service, sent[i] as string))),
    );
    // The first alone; the three that waited together, refused whole; then each of them alone.
    expect(statements).toEqual([1, 3, 1, 1, 1]);
    const failed = results[2] as PromiseRejectedResult;
    expect(failed.status).toBe('rejected');
    // The order repository names the service in it (see orders.test.ts for the answer).
    expect(failed.reason).toBeInstanceOf(MissingReferenceError);
    const written = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);
    await expectRowsOf(written, [sent[0], sent[1], sent[3]] as string[]);
    expect((await t.counts()).orders).toBe(3);
  });

  it('gives ids auto_increment_increment apart', async () => {
    const pool = mysql.createPool({ ...t.settings, connectionLimit: 2, multipleStatements: true });
    pool.pool.on('connection', (conn) => {
      conn.query('SET SESSION auto_increment_increment = 3');
    });
    try {
      const { insert } = sharedInserts(platformDatabase(pool), { ...ORDERS, concurrency: 1 });
      const sent = names(6);
      const ids = await Promise.all(sent.map((name) => insert(row(serviceId, name))));
      const batch = ids.slice(1);
      expect(batch.map((id) => id - (batch[0] as number))).toEqual([0, 3, 6, 9, 12]);
      await expectRowsOf(ids, sent);
    } finally {
      await pool.end();
    }
  });

  it('fails every row of a statement when the server is out of reach, and writes none of them again', async () => {
    const pool = mysql.createPool({
      host: '127.0.0.1',
      port: await freePort(),
      user: 'nobody',
      connectTimeout: 1000,
    });
    try {
      const { db, statements } = countedDatabase(pool);
      const { insert } = sharedInserts(db, { ...ORDERS, concurrency: 1 });
      const results = await Promise.allSettled(
        names(5).map((name) => insert(row(serviceId, name))),
      );
      expect(statements).toEqual([1, 4]);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
      }
    } finally {
      await pool.end();
    }
  });
  it('reads auto_increment_increment again once MySQL is back, after a read that failed', async () => {
    const server = await startMariaDbServer();
    const pool = await createMysqlPool({
      ...(await createTestDatabase(server.url)).settings,
      connectTimeoutMs: 1000,
      multipleStatements: true,
    });
    try {
      await migrate(pool, migrationsDir);
      const app = createRecordedApp({ pool, logger: testLogs('insert-batches').logger });
      const service = await addService(app, await addMerchant(app));
      const db = platformDatabase(pool, 1500);
      const { insert } = sharedInserts(db, { ...ORDERS, concurrency: 1 });
      const send = (sent: string[]) =>
        Promise.allSettled(sent.map((name) => insert(row(service, name))));

      await server.stop();
      // The first row alone, then two together: the shared one reads the step first, and fails.
      for (const result of await send(names(3))) {
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
      }
      await server.start();
      await expect
        .poll(
          () =>
            db.select('SELECT 1').then(
              () => true,
              () => false,
            ),
          { timeout: 10_000 },
        )
        .toBe(true);
      const sent = names(3);
      const results = await send(sent);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      const ids = results.map((r) => (r as PromiseFulfilledResult<number>).value);
      for (const [i, id] of ids.entries()) {
        expect((await rowOf(pool, 'orders', id)).user_name).toBe(sent[i]);
      }
    } finally {
      await pool.end();
      await server.destroy();
    }
  });
});

describe('POST /api/order/create at the same moment', () => {
  it('answers each caller with the id of the order it sent', async () => {
    const sent = names(60);
    const answers = await Promise.all(
      sent.map((name) =>
        request(t.app)
          .post('/api/order/create')
          .send({ ...orderInput, user_name: name, service_id: serviceId }),
      ),
    );
    for (const res of answers) expect(res.body).toMatchObject({ code: 200 });
    await expectRowsOf(
      answers.map((res) => res.body.data.id),
      sent,
    );
  });
});
