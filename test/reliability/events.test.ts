import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMysqlPool, type Pool, type RowDataPacket } from '@svc/common';
import { createTestDatabase, mysqlVariables, type TestDatabase } from '@svc/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readEventStream } from './support/event-stream.js';
import { type ServiceProcess, startService } from './support/service-process.js';

/**
 * The events of the platform on real processes sharing one MariaDB: the feed
 * and the stream across two instances, webhooks delivered by two instances, a
 * receiver that fails then recovers, and an instance killed in the middle of
 * a burst of creates, after its commits and before it published them, or
 * in the middle of a publish step.
 */

interface FeedEvent {
  id: string;
  type: string;
  data: { id: number };
}

let db: TestDatabase;
let pool: Pool;
let running: ServiceProcess[] = [];
let serviceId: number;
const closers: (() => void)[] = [];

const start = async () => {
  const service = await startService('platform', {
    ...mysqlVariables(db.settings),
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  running.push(service);
  return service;
};

async function post(service: ServiceProcess, path: string, body: object) {
  const res = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { code: number; data: { id: number } };
}

const createOrder = (service: ServiceProcess, name: string) =>
  post(service, '/api/order/create', { service_id: serviceId, user_name: name, user_phone: '1' });

/** The whole feed after `after`, page by page, as a client reads it. */
async function feed(service: ServiceProcess, after = '0'): Promise<FeedEvent[]> {
  const all: FeedEvent[] = [];
  for (let cursor = after; ; ) {
    const res = await fetch(`${service.url}/api/events?after=${cursor}&limit=500`);
    expect(res.status).toBe(200);
    const page = ((await res.json()) as { data: FeedEvent[] }).data;
    all.push(...page);
    if (page.length < 500) return all;
    cursor = res.headers.get('x-next-cursor') as string;
  }
}

const lastId = async (service: ServiceProcess) => (await feed(service)).at(-1)?.id ?? '0';

/**
 * 600 creates named `${prefix}n`, 32 at a time, on `doomed`, SIGKILLed once
 * 150 are answered; resolves once it is dead with the ids of the orders that
 * committed.
 */
async function killMidBurst(doomed: ServiceProcess, prefix: string): Promise<number[]> {
  let answered = 0;
  let next = 0;
  const worker = async () => {
    while (next < 600) {
      const answer = await createOrder(doomed, `${prefix}${next++}`).catch(() => undefined);
      if (answer?.code === 200) answered += 1;
      if (answered === 150) doomed.signal('SIGKILL');
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  await doomed.exited;
  const [orders] = await pool.query<RowDataPacket[]>(
    'SELECT id FROM orders WHERE user_name LIKE ? ORDER BY id',
    [`${prefix}%`],
  );
  return orders.map((row) => row.id);
}

async function receiver(answer: (headers: IncomingHttpHeaders) => number) {
  const received: { id: string; at: number }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ id: req.headers['webhook-id'] as string, at: Date.now() });
      res.writeHead(answer(req.headers)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

/** The distinct event ids a receiver got, in order. */
const receivedIds = (received: { id: string }[]) =>
  [...new Set(received.map(({ id }) => Number(id)))].sort((a, b) => a - b);

/** The ids a statement selects as `id`, as numbers. */
async function ids(sql: string, values: unknown[] = []): Promise<number[]> {
  const [rows] = await pool.query<RowDataPacket[]>(sql, values);
  return rows.map((row) => Number(row.id));
}

/** The event ids a webhook has deliveries of, oldest first. */
const deliveredEvents = (webhookId: number) =>
  ids('SELECT event_id AS id FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id', [
    webhookId,
  ]);

/** The last event id published (event_counter's 'published' row). */
const publishedThrough = async () =>
  (await ids("SELECT last_id AS id FROM event_counter WHERE name = 'published'"))[0];

/**
 * Takes the 'published' row on a connection of the pool and keeps it until
 * the returned function first runs: no publish step gets past it meanwhile
 * (writers never take that row).
 */
async function holdPublished(): Promise<() => Promise<void>> {
  const holder = await pool.getConnection();
  await holder.query('START TRANSACTION');
  await holder.query("SELECT last_id FROM event_counter WHERE name = 'published' FOR UPDATE");
  let held = true;
  return async () => {
    if (!held) return;
    held = false;
    await holder.query('ROLLBACK');
    holder.release();
  };
}

const p95 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1] as number;

beforeAll(async () => {
  db = await createTestDatabase();
  const first = await start();
  const merchant = await post(first, '/api/merchant/add', {
    name: '张三家政',
    address: '北京市朝阳区1号',
    phone: '13800138000',
  });
  const service = await post(first, '/api/service/add', {
    merchant_id: merchant.data.id,
    name: '日常保洁',
    price: 150,
    category: '保洁',
  });
  serviceId = service.data.id;
  pool = await createMysqlPool(db.settings);
});
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await Promise.all(running.map((service) => service.stop()));
  running = [];
  await pool.query('DELETE FROM webhooks');
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe('events on real processes', () => {
  it('gives every committed order exactly one order.created when the instance is killed mid-burst', async () => {
    const doomed = await start();
    const since = await lastId(doomed);
    const orders = await killMidBurst(doomed, 'kill-');
    const survivor = await start();
    const events = (await feed(survivor, since)).filter(({ type }) => type === 'order.created');
    expect(orders.length).toBeGreaterThanOrEqual(150);
    expect(orders.length).toBeLessThan(600);
    expect(events.map(({ data }) => data.id).sort((a, b) => a - b)).toEqual(orders);
    const ids = events.map(({ id }) => Number(id));
    expect(ids).toEqual(ids.map((_id, i) => Number(since) + 1 + i));
  });

  it('writes the webhook delivery of every committed event when the instance that wrote it is killed before publishing it', async () => {
    // The one instance running until the kill, so none publishes meanwhile.
    await Promise.all(running.map((service) => service.stop()));
    running = [];
    const doomed = await start();
    // Every event before this one is published: the webhook gets only the burst's.
    const since = await lastId(doomed);
    const live = await receiver(() => 200);
    const hook = await post(doomed, '/api/webhooks', { url: live.url, types: ['order.created'] });
    // Holding the 'published' row keeps the doomed instance's publisher from
    // publishing anything (writers never take that row): it dies with every
    // event of the burst committed and none published.
    const letGo = await holdPublished();
    let orders: number[];
    let published: number | undefined;
    try {
      orders = await killMidBurst(doomed, 'unpublished-');
      published = await publishedThrough();
    } finally {
      await letGo();
    }
    expect(published).toBe(Number(since));
    expect(orders.length).toBeGreaterThanOrEqual(150);
    const survivor = await start();
    const events = (await feed(survivor, since)).filter(({ type }) => type === 'order.created');
    expect(events.map(({ data }) => data.id).sort((a, b) => a - b)).toEqual(orders);
    await expect
      .poll(() => deliveredEvents(hook.data.id), { timeout: 10_000 })
      .toEqual(events.map(({ id }) => Number(id)));
    await expect
      .poll(() => receivedIds(live.received), { timeout: 20_000 })
      .toEqual(events.map(({ id }) => Number(id)));
  });

  it('writes every delivery once when the instance publishing them is killed before its publish step commits', async () => {
    await Promise.all(running.map((service) => service.stop()));
    running = [];
    const doomed = await start();
    const since = Number(await lastId(doomed));
    const live = await receiver(() => 200);
    const hook = await post(doomed, '/api/webhooks', { url: live.url, types: ['order.created'] });
    const deliveries = () => deliveredEvents(hook.data.id);
    /** The transactions of the test's database waiting on a lock in a deliveries' INSERT. */
    const publishWaiting = async () =>
      (
        await ids(
          `SELECT t.trx_mysql_thread_id AS id FROM information_schema.innodb_trx t
           JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id
           WHERE p.db = ? AND t.trx_state = 'LOCK WAIT' AND t.trx_query LIKE '%INTO webhook_deliveries%'`,
          [db.settings.database],
        )
      ).length;
    // InnoDB refreshes innodb_trx only once it has not been read for 100 ms.
    const innodbTrxPoll = { timeout: 10_000, interval: 250 };
    const letGo = await holdPublished();
    const blocker = await pool.getConnection();
    let before: number | undefined;
    let last: number | undefined;
    try {
      for (let i = 0; i < 50; i++) {
        expect((await createOrder(doomed, `publishing-${i}`)).code).toBe(200);
      }
      [last] = await ids('SELECT MAX(id) AS id FROM events');
      // A delivery of the last event, written and not committed: the step's
      // INSERT writes the deliveries before it, then waits for this one.
      await blocker.query('START TRANSACTION');
      await blocker.query('INSERT INTO webhook_deliveries (webhook_id, event_id) VALUES (?, ?)', [
        hook.data.id,
        last,
      ]);
      await letGo();
      await expect.poll(publishWaiting, innodbTrxPoll).toBe(1);
      // A step that began before the row was let go may have published the first few.
      before = await publishedThrough();
      doomed.signal('SIGKILL');
      await doomed.exited;
    } finally {
      await letGo();
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    // Let go, the dead instance's INSERT ends, and the server undoes its step.
    const changing = async () =>
      (
        await ids(
          'SELECT trx_id AS id FROM information_schema.innodb_trx WHERE trx_rows_modified > 0',
        )
      ).length;
    await expect.poll(changing, innodbTrxPoll).toBe(0);
    const numbered = () =>
      ids("SELECT id FROM events WHERE type = 'order.created' AND id > ? ORDER BY id", [since]);
    expect(before).toBeLessThan(last as number);
    expect(await publishedThrough()).toBe(before);
    expect(await deliveries()).toEqual((await numbered()).filter((id) => id <= (before as number)));
    await start();
    // The new instance numbers the events the dead one had not, and publishes them all.
    await expect.poll(async () => (await numbered()).length, { timeout: 10_000 }).toBe(50);
    const created = await numbered();
    expect(created.at(-1)).toBe(since + 50);
    await expect.poll(deliveries, { timeout: 10_000 }).toEqual(created);
    await expect.poll(() => receivedIds(live.received), { timeout: 20_000 }).toEqual(created);
    expect(live.received).toHaveLength(50);
  });

  it('brings an event committed on either instance to the streams and feeds of both, within 1 s p95', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const since = await lastId(a);
    const streams = await Promise.all([readEventStream(a.url), readEventStream(b.url)]);
    for (const stream of streams) closers.push(stream.close);
    const answeredAt = new Map<number, number>();
    for (let i = 0; i < 100; i++) {
      const created = await createOrder(i % 2 ? a : b, `live-${i}`);
      answeredAt.set(created.data.id, Date.now());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const stream of streams) {
      await expect.poll(() => stream.events.length, { timeout: 5000 }).toBe(100);
      const ids = stream.events.map(({ id }) => Number(id));
      expect(ids).toEqual(ids.map((_id, i) => Number(since) + 1 + i));
      const latencies = stream.events.map(
        ({ at, data }) => at - (answeredAt.get(data.data.id) as number),
      );
      expect(p95(latencies)).toBeLessThan(1000);
    }
    expect(await feed(a, since)).toEqual(await feed(b, since));
  });

  it('delivers every event once to a receiver when two instances deliver', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const live = await receiver(() => 200);
    await post(a, '/api/webhooks', { url: live.url, types: ['order.created'] });
    const created = await Promise.all(
      Array.from({ length: 300 }, (_x, i) => createOrder(i % 2 ? a : b, `hook-${i}`)),
    );
    expect(created.every(({ code }) => code === 200)).toBe(true);
    await expect.poll(() => live.received.length, { timeout: 20_000 }).toBe(300);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(new Set(live.received.map(({ id }) => id)).size).toBe(300);
    expect(live.received).toHaveLength(300);
  });

  it('ends its open streams at a graceful shutdown instead of waiting its grace on them', async () => {
    const service = await start();
    const stream = await readEventStream(service.url);
    closers.push(stream.close);
    const stopping = Date.now();
    service.signal('SIGTERM');
    await stream.ended;
    expect(await service.exited).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(5000);
  });

  it('redelivers to a receiver that failed, 5 s later, with the same webhook-id', async () => {
    const service = await start();
    let calls = 0;
    const flaky = await receiver(() => (++calls === 1 ? 500 : 200));
    await post(service, '/api/webhooks', { url: flaky.url });
    await post(service, '/api/merchant/add', { name: 'm', address: 'a', phone: '1' });
    await expect.poll(() => flaky.received.length, { timeout: 15_000, interval: 200 }).toBe(2);
    const [first, second] = flaky.received;
    expect(second!.id).toBe(first!.id);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(4900);
    expect(second!.at - first!.at).toBeLessThan(7000);
  });
});
