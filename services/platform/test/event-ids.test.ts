import type { ResultSetHeader, RowDataPacket } from '@svc/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformDatabase } from '../src/store/database.js';
import { publishCommitted } from '../src/webhooks/deliveries.js';
import {
  addMerchant,
  addOrder,
  addService,
  createTestApp,
  rowOf,
  type TestApp,
} from './support/test-app.js';

/**
 * Who gives an event its id: the transaction that writes it, under
 * event_counter's lock, or the publisher when another transaction held that
 * lock. No publisher runs in the background here.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function counter() {
  const [rows] = await t.pool.query<RowDataPacket[]>(
    "SELECT name, last_id FROM event_counter WHERE name IN ('events', 'published')",
  );
  const of = (name: string) => Number(rows.find((row) => row.name === name)!.last_id);
  return { last: of('events'), published: of('published') };
}

/** Each event of an order: its id (null: not numbered yet) and type, in the order they were written. */
async function eventsOfOrder(orderId: number) {
  const [rows] = await t.pool.query<RowDataPacket[]>(
    "SELECT id, type FROM events WHERE type LIKE 'order.%' AND row_id = ? ORDER BY seq",
    [orderId],
  );
  return rows.map(({ id, type }) => [id === null ? null : Number(id), type]);
}

describe('event ids', () => {
  it('are given by the transaction that writes the events, before any publish step', async () => {
    const merchant = await addMerchant(t.app);
    const service = await addService(t.app, merchant);
    const { last, published } = await counter();
    const order = await addOrder(t.app, service);
    await request(t.app).put(`/api/order/complete/${order}`).expect(200);
    expect(await eventsOfOrder(order)).toEqual([
      [last + 1, 'order.created'],
      [last + 2, 'order.completed'],
    ]);
    expect(await counter()).toEqual({ last: last + 2, published });

    const step = await publishCommitted(platformDatabase(t.pool));
    expect(step).toMatchObject({ numbered: 0, full: false });
    expect(step.published.get('order.created')).toBe(1);
    expect(step.published.get('order.completed')).toBe(1);
    expect(await counter()).toEqual({ last: last + 2, published: last + 2 });
  });

  it('are given by the publisher when another transaction holds the counter: the create does not wait for it', async () => {
    const service = await addService(t.app, await addMerchant(t.app));
    const holder = await t.pool.getConnection();
    try {
      await holder.query('START TRANSACTION');
      await holder.query("SELECT last_id FROM event_counter WHERE name = 'events' FOR UPDATE");
      const { last } = await counter();
      // Answered while the lock is still held: a create that waited for it would time out here.
      const order = await Promise.race([
        addOrder(t.app, service),
        new Promise<never>((_resolve, reject) =>
          setTimeout(() => reject(new Error('the create waited for the counter')), 3000),
        ),
      ]);
      expect(await eventsOfOrder(order)).toEqual([[null, 'order.created']]);
      await holder.query('COMMIT');

      const step = await publishCommitted(platformDatabase(t.pool));
      expect(step.numbered).toBe(1);
      expect(await eventsOfOrder(order)).toEqual([[last + 1, 'order.created']]);
      expect(await counter()).toEqual({ last: last + 1, published: last + 1 });
    } finally {
      holder.release();
    }
  });

  it('come in the order of the changes: a completion waits for the id of its order created while the counter was held', async () => {
    const service = await addService(t.app, await addMerchant(t.app));
    const holder = await t.pool.getConnection();
    let order: number;
    const { last } = await counter();
    try {
      await holder.query('START TRANSACTION');
      await holder.query("SELECT last_id FROM event_counter WHERE name = 'events' FOR UPDATE");
      order = await addOrder(t.app, service);
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    // The counter is free again, but the order's event still has no id.
    await request(t.app).put(`/api/order/complete/${order}`).expect(200);
    expect(await eventsOfOrder(order)).toEqual([
      [null, 'order.created'],
      [null, 'order.completed'],
    ]);
    expect((await publishCommitted(platformDatabase(t.pool))).numbered).toBe(2);
    expect(await eventsOfOrder(order)).toEqual([
      [last + 1, 'order.created'],
      [last + 2, 'order.completed'],
    ]);
  });

  it("a completion racing its order's create answers, changes and writes its event alike", async () => {
    const service = await addService(t.app, await addMerchant(t.app));
    const [rows] = await t.pool.query<RowDataPacket[]>(
      'SELECT COALESCE(MAX(id), 0) + 100 AS next FROM orders',
    );
    const next = Number(rows[0]!.next);
    // The completion is paused after its first statement, where it gives back the ids
    // it took: the counter is held, so it takes none, and so is the row of event_counter
    // a change without ids moves, a row that exists only while this test holds it.
    await t.pool.query("INSERT INTO event_counter (name, last_id) VALUES ('', 0)");
    const counter = await t.pool.getConnection();
    const pause = await t.pool.getConnection();
    let completing: Promise<request.Response> | undefined;
    try {
      await counter.query('START TRANSACTION');
      await counter.query("SELECT last_id FROM event_counter WHERE name = 'events' FOR UPDATE");
      await pause.query('START TRANSACTION');
      await pause.query("SELECT last_id FROM event_counter WHERE name = '' FOR UPDATE");
      completing = request(t.app)
        .put(`/api/order/complete/${next}`)
        .then((res) => res);
      // INNODB_TRX is refreshed only when it was not read for 0.1 s.
      await expect
        .poll(
          async () => {
            const [waiting] = await t.pool.query<RowDataPacket[]>(
              "SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'",
            );
            return Number(waiting[0]!.n);
          },
          { interval: 200 },
        )
        .toBe(1);
      // Its order is created meanwhile, as a create that committed while it ran.
      await t.pool.query(
        "INSERT INTO orders (id, service_id, user_name, user_phone) VALUES (?, ?, 'race', '1')",
        [next, service],
      );
    } finally {
      await pause.query("DELETE FROM event_counter WHERE name = ''");
      await pause.query('COMMIT');
      await counter.query('COMMIT');
      pause.release();
      counter.release();
    }
    const answer = await completing;
    expect(answer?.body).toEqual({ code: 404, msg: '订单不存在' });
    expect(await rowOf(t.pool, 'orders', next)).toMatchObject({ status: 0 });
    expect(await eventsOfOrder(next)).toEqual([]);
  });

  it('leave a webhook delivery that a server before migration 009 wrote as it is when they are published', async () => {
    const service = await addService(t.app, await addMerchant(t.app));
    await publishCommitted(platformDatabase(t.pool));
    const [hook] = await t.pool.query<ResultSetHeader>(
      "INSERT INTO webhooks (url, secret) VALUES ('https://receiver.example/hook', 'whsec_x')",
    );
    try {
      const order = await addOrder(t.app, service);
      const [[event]] = (await eventsOfOrder(order)) as [[number, string]];
      await t.pool.query(
        "INSERT INTO webhook_deliveries (webhook_id, event_id, status, attempts) VALUES (?, ?, 'delivered', 1)",
        [hook.insertId, event],
      );
      const step = await publishCommitted(platformDatabase(t.pool));
      expect(step.published.get('order.created')).toBe(1);
      const [rows] = await t.pool.query<RowDataPacket[]>(
        'SELECT status, attempts FROM webhook_deliveries WHERE webhook_id = ?',
        [hook.insertId],
      );
      expect(rows).toEqual([{ status: 'delivered', attempts: 1 }]);
    } finally {
      await t.pool.query('DELETE FROM webhooks WHERE id = ?', [hook.insertId]);
    }
  });
});
