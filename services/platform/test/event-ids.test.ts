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
  type TestApp,
} from './support/test-app.js';

/**
 * Who gives an event its id: the publish step, once the transaction that
 * wrote the event has committed; writers never touch event_counter. No
 * publisher runs in the background here.
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
  it('are given by the publish step once committed: a create and its completion get the next two', async () => {
    const merchant = await addMerchant(t.app);
    const service = await addService(t.app, merchant);
    await publishCommitted(platformDatabase(t.pool));
    const { last, published } = await counter();
    const order = await addOrder(t.app, service);
    await request(t.app).put(`/api/order/complete/${order}`).expect(200);
    expect(await eventsOfOrder(order)).toEqual([
      [null, 'order.created'],
      [null, 'order.completed'],
    ]);
    expect(await counter()).toEqual({ last, published });

    const step = await publishCommitted(platformDatabase(t.pool));
    expect(step).toMatchObject({ numbered: 2, full: false });
    expect(step.published.get('order.created')).toBe(1);
    expect(step.published.get('order.completed')).toBe(1);
    expect(await eventsOfOrder(order)).toEqual([
      [last + 1, 'order.created'],
      [last + 2, 'order.completed'],
    ]);
    expect(await counter()).toEqual({ last: last + 2, published: last + 2 });
  });

  it('never hold a writer: a create answers while a publish step holds the counter', async () => {
    const service = await addService(t.app, await addMerchant(t.app));
    await publishCommitted(platformDatabase(t.pool));
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

  it('follow the order events become readable: one written first and committed last gets the larger id, and a reader misses neither', async () => {
    const service = await addService(t.app, await addMerchant(t.app));
    await publishCommitted(platformDatabase(t.pool));
    const { last } = await counter();
    const slow = await t.pool.getConnection();
    try {
      await slow.query('START TRANSACTION');
      const [held] = await slow.query<ResultSetHeader>(
        "INSERT INTO orders (service_id, user_name, user_phone) VALUES (?, 'slow', '13900000000')",
        [service],
      );
      await slow.query(
        "INSERT INTO events (type, row_id, row_status) VALUES ('order.created', ?, 0)",
        [held.insertId],
      );
      const order = await addOrder(t.app, service);
      expect((await publishCommitted(platformDatabase(t.pool))).numbered).toBe(1);
      expect(await eventsOfOrder(order)).toEqual([[last + 1, 'order.created']]);
      const first = await request(t.app).get(`/api/events?after=${last}`).expect(200);
      expect(first.body.data.map((event: { id: string }) => event.id)).toEqual([`${last + 1}`]);

      await slow.query('COMMIT');
      expect((await publishCommitted(platformDatabase(t.pool))).numbered).toBe(1);
      expect(await eventsOfOrder(held.insertId)).toEqual([[last + 2, 'order.created']]);
      const next = await request(t.app)
        .get(`/api/events?after=${last + 1}`)
        .expect(200);
      expect(next.body.data.map((event: { id: string }) => event.id)).toEqual([`${last + 2}`]);
    } finally {
      await slow.query('ROLLBACK').catch(() => undefined);
      slow.release();
    }
  });

  it('leave a webhook delivery that a server before migration 009 wrote as it is when they are published', async () => {
    const service = await addService(t.app, await addMerchant(t.app));
    await publishCommitted(platformDatabase(t.pool));
    const [hook] = await t.pool.query<ResultSetHeader>(
      "INSERT INTO webhooks (url, secret) VALUES ('https://receiver.example/hook', 'whsec_x')",
    );
    try {
      const order = await addOrder(t.app, service);
      // A server before migration 009 numbered the event and wrote its delivery before publishing it.
      const { last } = await counter();
      await t.pool.query(
        "UPDATE events SET id = ? WHERE id IS NULL AND type = 'order.created' AND row_id = ?",
        [last + 1, order],
      );
      await t.pool.query("UPDATE event_counter SET last_id = ? WHERE name = 'events'", [last + 1]);
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
