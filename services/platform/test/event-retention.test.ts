import type { RowDataPacket } from '@svc/common';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platformDatabase } from '../src/store/database.js';
import { publishCommitted } from '../src/webhooks/deliveries.js';
import { eventRetention } from '../src/webhooks/event-retention.js';
import { startDeliverer } from './support/deliverer.js';
import { NUMBERS } from './support/numbers.js';
import { readsOf } from './support/session-reads.js';
import { addMerchant, createTestApp, execute, type TestApp } from './support/test-app.js';
import { startReceiver } from './support/webhook-receiver.js';

/**
 * Retention keeps what is still owed (EVENT_RETENTION_DAYS is 2 here, the
 * least start-up takes): an event with a delivery pending, or failed less
 * than the retention ago, and an event not yet published. Ages are set by
 * moving the rows' times back; no publisher runs in the background, so each
 * test publishes when it means to.
 */
const DAYS = 2;

let t: TestApp;
const stops: (() => Promise<void>)[] = [];
beforeAll(async () => {
  t = await createTestApp({ webhooksAllowPrivate: true });
});
beforeEach(async () => {
  await execute(t.pool, 'DELETE FROM webhooks');
  await execute(t.pool, 'DELETE FROM events');
});
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});
afterAll(async () => {
  await t.close();
});

const sweep = () => eventRetention(platformDatabase(t.pool)).sweep(DAYS);
const publish = () => publishCommitted(platformDatabase(t.pool));

/** A receiver that answers 503 until `up` is set, and a webhook of every type on it. */
async function webhookOnReceiver() {
  const receiver = { up: false };
  const live = await startReceiver(() => (receiver.up ? 200 : 503));
  stops.push(live.close);
  const res = await request(t.app).post('/api/webhooks').send({ url: live.url });
  expect(res.status).toBe(200);
  return Object.assign(receiver, { id: res.body.data.id as number, received: live.received });
}

/** A deliverer of one instance, until the test ends or `stop` is called. */
function deliver(retryDelays: number[]) {
  const deliverer = startDeliverer(t.pool, { retryDelays });
  stops.push(deliverer.stop);
  return deliverer;
}

const deliveriesOf = async (webhook: number) =>
  (await request(t.app).get(`/api/webhooks/${webhook}/deliveries`)).body.data as {
    eventId: string;
    status: string;
    attempts: number;
  }[];

/**
 * The merchant's event: its id, once written and numbered as a publish step
 * numbers it, in the transaction before the one that publishes it.
 */
async function merchantEvent(): Promise<number> {
  const merchant = await addMerchant(t.app);
  const [[counter]] = await t.pool.query<RowDataPacket[]>(
    "SELECT last_id + 1 AS id FROM event_counter WHERE name = 'events'",
  );
  const id = Number(counter!.id);
  await execute(t.pool, "UPDATE events SET id = ? WHERE type = 'merchant.added' AND row_id = ?", [
    id,
    merchant,
  ]);
  await execute(t.pool, "UPDATE event_counter SET last_id = ? WHERE name = 'events'", [id]);
  return id;
}

const ageEvent = (id: number, days: number) =>
  execute(t.pool, 'UPDATE events SET created_at = NOW(3) - INTERVAL ? DAY WHERE id = ?', [
    days,
    id,
  ]);

/** The event as the feed has it, or the feed's status when it has it no longer. */
async function inFeed(id: number) {
  const res = await request(t.app).get(`/api/events?after=${id - 1}&limit=1`);
  return res.status === 200 && res.body.data[0]?.id === String(id) ? res.body.data[0] : res.status;
}

describe('retention', () => {
  it('keeps an event past EVENT_RETENTION_DAYS while its delivery is retried, and the retry sends it', async () => {
    const hook = await webhookOnReceiver();
    const event = await merchantEvent();
    await publish();
    const first = deliver([3600]);
    await expect
      .poll(async () => (await deliveriesOf(hook.id))[0]?.attempts, { timeout: 5000 })
      .toBe(1);
    await first.stop();
    expect(await deliveriesOf(hook.id)).toMatchObject([
      { eventId: String(event), status: 'pending', attempts: 1 },
    ]);
    await ageEvent(event, DAYS + 1);
    const sent = await inFeed(event);

    expect(await sweep()).toBe(0);
    expect(await inFeed(event)).toEqual(sent);
    expect(await deliveriesOf(hook.id)).toMatchObject([{ status: 'pending', attempts: 1 }]);

    // The hour of the retry has passed, and the receiver is back.
    await execute(
      t.pool,
      'UPDATE webhook_deliveries SET next_attempt_at = NOW(3) WHERE webhook_id = ?',
      [hook.id],
    );
    hook.up = true;
    deliver([3600]);
    await expect
      .poll(async () => (await deliveriesOf(hook.id))[0]?.status, { timeout: 5000 })
      .toBe('delivered');
    expect(hook.received.map(({ body }) => JSON.parse(body).id)).toEqual([sent.id, sent.id]);
    expect(JSON.parse(hook.received[1]!.body)).toEqual(sent);

    expect(await sweep()).toBe(1);
    expect(await inFeed(event)).toBe(410);
    expect(await deliveriesOf(hook.id)).toEqual([]);
  });

  it('keeps a failed delivery, and its event, listed and retryable for EVENT_RETENTION_DAYS after it failed', async () => {
    const hook = await webhookOnReceiver();
    const event = await merchantEvent();
    await publish();
    const first = deliver([]);
    await expect
      .poll(async () => (await deliveriesOf(hook.id))[0]?.status, { timeout: 5000 })
      .toBe('failed');
    await first.stop();
    await ageEvent(event, 10);
    await execute(
      t.pool,
      'UPDATE webhook_deliveries SET next_attempt_at = NOW(3) - INTERVAL ? HOUR WHERE webhook_id = ?',
      [DAYS * 24 - 1, hook.id],
    );
    const sent = await inFeed(event);

    expect(await sweep()).toBe(0);
    expect(await deliveriesOf(hook.id)).toMatchObject([
      { eventId: String(event), status: 'failed' },
    ]);
    hook.up = true;
    const retried = await request(t.app).post(`/api/webhooks/${hook.id}/retry`);
    expect(retried.body).toEqual({ code: 200, message: '已重新发送', data: { retried: 1 } });
    deliver([]);
    await expect
      .poll(async () => (await deliveriesOf(hook.id))[0]?.status, { timeout: 5000 })
      .toBe('delivered');
    expect(hook.received.map(({ body }) => JSON.parse(body).id)).toEqual([sent.id, sent.id]);
    expect(JSON.parse(hook.received[1]!.body)).toEqual(sent);
  });

  it('forgets a failed delivery EVENT_RETENTION_DAYS after it failed, and then its event', async () => {
    const hook = await webhookOnReceiver();
    const event = await merchantEvent();
    await publish();
    const first = deliver([]);
    await expect
      .poll(async () => (await deliveriesOf(hook.id))[0]?.status, { timeout: 5000 })
      .toBe('failed');
    await first.stop();
    await ageEvent(event, 10);
    await execute(
      t.pool,
      'UPDATE webhook_deliveries SET next_attempt_at = NOW(3) - INTERVAL ? HOUR WHERE webhook_id = ?',
      [DAYS * 24 + 1, hook.id],
    );

    expect(await sweep()).toBe(1);
    expect(await deliveriesOf(hook.id)).toEqual([]);
    expect(await inFeed(event)).toBe(410);
    const retried = await request(t.app).post(`/api/webhooks/${hook.id}/retry`);
    expect(retried.body.data).toEqual({ retried: 0 });
  });

  it('keeps an event the JetStream relay has not relayed yet, and deletes it once relayed', async () => {
    const event = await merchantEvent();
    await publish();
    await execute(t.pool, 'UPDATE events SET created_at = NOW(3) - INTERVAL 10 DAY WHERE id <= ?', [
      event,
    ]);
    await execute(t.pool, 'INSERT INTO event_relays (stream, last_id) VALUES (?, ?)', [
      'RETENTION_TEST',
      event - 1,
    ]);
    const kept = async () => {
      await eventRetention(platformDatabase(t.pool), { relayStream: 'RETENTION_TEST' }).sweep(DAYS);
      const [rows] = await t.pool.query<RowDataPacket[]>('SELECT 1 FROM events WHERE id = ?', [
        event,
      ]);
      return rows.length === 1;
    };
    expect(await kept()).toBe(true);
    await execute(t.pool, 'UPDATE event_relays SET last_id = ? WHERE stream = ?', [
      event,
      'RETENTION_TEST',
    ]);
    expect(await kept()).toBe(false);
  });

  it('keeps an event that no publish step has published yet, and its webhook then gets it', async () => {
    const hook = await webhookOnReceiver();
    hook.up = true;
    const event = await merchantEvent();
    await ageEvent(event, 10);

    // No feed read before the sweep: the feed publishes what has committed before it reads.
    expect(await sweep()).toBe(0);
    expect((await publish()).published.get('merchant.added')).toBe(1);
    deliver([]);
    await expect
      .poll(async () => (await deliveriesOf(hook.id))[0]?.status, { timeout: 5000 })
      .toBe('delivered');
    expect(hook.received.map(({ body }) => JSON.parse(body))).toEqual([await inFeed(event)]);
  });

  it('stops at the oldest event still owed, so the kept events stay every one from the oldest kept on', async () => {
    const hook = await webhookOnReceiver();
    const [delivered, pending, after] = [
      await merchantEvent(),
      await merchantEvent(),
      await merchantEvent(),
    ];
    await publish();
    await execute(
      t.pool,
      `UPDATE webhook_deliveries SET status = IF(event_id = ?, 'pending', 'delivered'),
         next_attempt_at = NOW(3) + INTERVAL 1 HOUR WHERE webhook_id = ?`,
      [pending, hook.id],
    );
    for (const event of [delivered, pending, after]) await ageEvent(event, 10);

    expect(await sweep()).toBe(1);
    const feed = await request(t.app).get(`/api/events?after=${delivered}`);
    expect(feed.body.data.map(({ id }: { id: string }) => Number(id))).toEqual([pending, after]);
    const gone = await request(t.app).get(`/api/events?after=${delivered - 1}`);
    expect(gone.status).toBe(410);
    expect(gone.body.message).toBe(
      `the events after ${delivered - 1} are no longer kept: the oldest kept is ${pending}`,
    );
    expect((await deliveriesOf(hook.id)).map(({ eventId }) => Number(eventId))).toEqual([
      after,
      pending,
    ]);
  });
});

describe('retention on a table of many kept events and deliveries', () => {
  /** Numbered and published events, each delivered to one webhook; the newest also owed to another. */
  const KEPT = 30_000;
  const OWED = 3000;
  let big: TestApp;
  beforeAll(async () => {
    big = await createTestApp();
    await execute(
      big.pool,
      `INSERT INTO events (id, type, row_id, row_status)
       SELECT n, 'order.created', n, 0 FROM (${NUMBERS}) numbers WHERE n <= ? ORDER BY n`,
      [KEPT],
    );
    await execute(
      big.pool,
      "UPDATE event_counter SET last_id = ? WHERE name IN ('events', 'published')",
      [KEPT],
    );
    await execute(
      big.pool,
      "INSERT INTO webhooks (id, url, secret) VALUES (1, 'https://a.example/h', 'whsec_a'), (2, 'https://b.example/h', 'whsec_b')",
    );
    await execute(
      big.pool,
      `INSERT INTO webhook_deliveries (webhook_id, event_id, status, attempts)
       SELECT 1, n, 'delivered', 1 FROM (${NUMBERS}) numbers WHERE n <= ? ORDER BY n`,
      [KEPT],
    );
    await execute(
      big.pool,
      `INSERT INTO webhook_deliveries (webhook_id, event_id, status, attempts, next_attempt_at)
       SELECT 2, n, IF(n % 2, 'failed', 'pending'), 8, NOW(3) + INTERVAL IF(n % 2, -1, 1) HOUR
       FROM (${NUMBERS}) numbers WHERE n > ? AND n <= ? ORDER BY n`,
      [KEPT - OWED, KEPT],
    );
    await execute(big.pool, 'ANALYZE TABLE events, webhook_deliveries');
  });
  afterAll(async () => {
    await big.close();
  });

  it('a sweep with nothing to delete reads a few index entries, not the table', async () => {
    const reads = await readsOf(big.settings, async (db) => {
      expect(await eventRetention(db).sweep(DAYS)).toBe(0);
    });
    expect(reads).toBeLessThan(100);
  });

  it('a sweep that deletes the oldest thousand events reads about those and their deliveries alone', async () => {
    await execute(
      big.pool,
      'UPDATE events SET created_at = NOW(3) - INTERVAL 10 DAY WHERE id <= 1000',
    );
    const reads = await readsOf(big.settings, async (db) => {
      expect(await eventRetention(db).sweep(DAYS)).toBe(1000);
    });
    expect(reads).toBeLessThan(10_000);
    const [rows] = await big.pool.query<RowDataPacket[]>(
      `SELECT (SELECT MIN(id) FROM events) AS oldest, (SELECT COUNT(*) FROM events) AS events,
         (SELECT COUNT(*) FROM webhook_deliveries) AS deliveries`,
    );
    expect(rows[0]).toEqual({ oldest: 1001, events: KEPT - 1000, deliveries: KEPT - 1000 + OWED });
  });
});
