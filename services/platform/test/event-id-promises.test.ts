import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pool, RowDataPacket } from '@svc/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventOutbox } from '../src/feed/event-outbox.js';
import { platformDatabase } from '../src/store/database.js';
import { openStream } from './support/event-stream-client.js';
import {
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
 * What event ids promise (docs/platform.md, "Events"), tried under load on
 * two instances of one database, each publishing in the background:
 *
 * 1. Ids increase in the order events are published: every read of the feed
 *    holds every id from its `after` up to its last, so an id a reader meets
 *    for the first time is above every id it met before.
 * 2. A reader that resumes after an id misses no event: feed readers and
 *    streams that resume from each id they saw end with every event.
 * 3. The events of one order, merchant or service come in the order of its
 *    changes, a completion racing its order's create included.
 *
 * Ids are not in commit order across rows, and nothing here says they are.
 * Writers run all at once, and the counter row is held from outside now and
 * then (as a slow commit holds it), so publish steps number many events too.
 */

const ORDER_CLIENTS = 16;
const ORDERS_EACH = 20;
const MERCHANT_CLIENTS = 4;
const MERCHANTS_EACH = 4;
const SERVICE_CLIENTS = 4;
const SERVICE_CHANGES = ['publish', 'unpublish', 'publish'] as const;

type Instance = { base: string; close(): Promise<void> };
type FeedEvent = { id: string; type: string; data: { id: number; status: number } };

let t: TestApp;
let instances: Instance[];
beforeAll(async () => {
  t = await createTestApp({ publishing: true });
  instances = [await listen(t.app), await secondInstance(t)];
});
afterAll(async () => {
  for (const instance of instances ?? []) await instance.close();
  await t?.close();
});

async function listen(app: TestApp['app'], close = async () => {}): Promise<Instance> {
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await close();
    },
  };
}

/** Another instance on the same database: its own pool, publisher and hub. */
async function secondInstance(first: TestApp): Promise<Instance> {
  const pool = await createPlatformPool(first.settings);
  const { logger } = testLogs('second-instance');
  const outbox = eventOutbox(platformDatabase(pool), logger);
  const stopPublishing = outbox.publisher.start();
  const app = createRecordedApp({ pool, logger, outbox });
  return listen(app, async () => {
    outbox.hub.endAll();
    await stopPublishing();
    await pool.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = () => instances[Math.floor(Math.random() * instances.length)] as Instance;

/** A request to either instance; its status and its JSON body, read as `T`. */
async function call<T>(method: string, path: string, body?: object) {
  const res = await fetch(`${pick().base}${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** A create through the API; its new row's id. */
async function created(path: string, body: object): Promise<number> {
  const { body: answer } = await call<{ code: number; data: { id: number } }>('POST', path, body);
  if (answer.code !== 200) throw new Error(`${path}: ${JSON.stringify(answer)}`);
  return answer.data.id;
}

async function changed(path: string): Promise<void> {
  const { body } = await call<{ code: number }>('PUT', path);
  if (body.code !== 200) throw new Error(`${path}: ${JSON.stringify(body)}`);
}

/** One page of the feed after `after`, from either instance; a page that skips an id is a broken promise. */
async function page(after: number, limit: number, broken: string[]): Promise<number[]> {
  const { status, body } = await call<{ data: FeedEvent[] }>(
    'GET',
    `/api/events?after=${after}&limit=${limit}`,
  );
  if (status !== 200) throw new Error(`feed after ${after}: ${status} ${JSON.stringify(body)}`);
  const ids = body.data.map(({ id }) => Number(id));
  if (ids.some((id, i) => id !== after + 1 + i)) {
    broken.push(`the feed after ${after} read ${ids.join(',')}`);
  }
  return ids;
}

async function everyEventAfter(mark: number): Promise<FeedEvent[]> {
  const all: FeedEvent[] = [];
  for (;;) {
    const after = Number(all.at(-1)?.id ?? mark);
    const { body } = await call<{ data: FeedEvent[] }>(
      'GET',
      `/api/events?after=${after}&limit=500`,
    );
    if (body.data.length === 0) return all;
    all.push(...body.data);
  }
}

/**
 * Until `until()`: reads the newest events over and over, from a little below
 * the highest id read so far, where an event published late would show; an
 * id met for the first time at or below that highest one breaks promise 1.
 */
async function watch(mark: number, until: () => boolean, broken: string[]): Promise<number> {
  const seen = new Set<number>();
  let highest = mark;
  let reads = 0;
  while (!until()) {
    const ids = await page(Math.max(mark, highest - 50), 500, broken);
    for (const id of ids.filter((each) => !seen.has(each))) {
      if (id <= highest) broken.push(`id ${id} was first read after id ${highest}`);
      seen.add(id);
    }
    highest = Math.max(highest, ...ids);
    reads += 1;
  }
  return reads;
}

/** A reader that resumes after the last id it saw, a page of 1 to 40 events at a time, until it holds `last()`. */
async function followFeed(mark: number, last: () => number | undefined, broken: string[]) {
  const got: number[] = [];
  while (last() === undefined || (got.at(-1) ?? mark) < (last() as number)) {
    const ids = await page(got.at(-1) ?? mark, 1 + Math.floor(Math.random() * 40), broken);
    got.push(...ids);
    if (ids.length === 0) await sleep(5);
  }
  return got;
}

/** A stream reader that reconnects with Last-Event-ID after every few events, until it holds `last()`. */
async function followStream(
  instance: Instance,
  mark: number,
  last: () => number | undefined,
  broken: string[],
) {
  const got: number[] = [];
  while (last() === undefined || (got.at(-1) ?? mark) < (last() as number)) {
    const resumed = got.at(-1) ?? mark;
    const stream = await openStream(`${instance.base}/api/events/stream`, {
      'Last-Event-ID': String(resumed),
    });
    try {
      for (let i = 0; i < 7; i++) {
        const [message] = await stream.next(1, 300).catch(() => []);
        if (!message) break;
        const id = Number(message.id);
        if (id !== (got.at(-1) ?? mark) + 1)
          broken.push(`a stream resumed after ${resumed} sent ${id} after ${got.at(-1)}`);
        got.push(id);
      }
    } finally {
      stream.close();
    }
  }
  return got;
}

/** Holds the counter row now and then, as a slow commit does, so writers leave their events to publish steps. */
async function holdCounter(pool: Pool, until: () => boolean): Promise<void> {
  const conn = await pool.getConnection();
  try {
    while (!until()) {
      await conn.query('START TRANSACTION');
      await conn.query("SELECT last_id FROM event_counter WHERE name = 'events' FOR UPDATE");
      await sleep(15);
      await conn.query('COMMIT');
      await sleep(30);
    }
  } finally {
    conn.release();
  }
}

/** The most committed events seen waiting for an id at once. */
async function mostUnnumbered(pool: Pool, until: () => boolean): Promise<number> {
  let most = 0;
  while (!until()) {
    const [rows] = await pool.query<RowDataPacket[]>(
      'SELECT COUNT(*) AS n FROM events WHERE id IS NULL',
    );
    most = Math.max(most, Number(rows[0]!.n));
    await sleep(5);
  }
  return most;
}

describe('event ids, under many writers on two instances', () => {
  it('increase in publication order, leave no reader a gap, and keep each row in the order of its changes', async () => {
    const merchant = await created('/api/merchant/add', merchantInput);
    const service = await created('/api/service/add', {
      ...serviceInput,
      merchant_id: merchant,
      stock: 0,
    });
    // The feed publishes what has committed before it answers: its two events come before the mark.
    await call('GET', '/api/events?after=0');
    const [counter] = (
      await t.pool.query<RowDataPacket[]>("SELECT last_id FROM event_counter WHERE name = 'events'")
    )[0];
    const mark = Number(counter!.last_id);

    const broken: string[] = [];
    let writing = true;
    let last: number | undefined;
    const orders: { id: number; answeredAt: number }[] = [];
    const races: { id: number; sentAt: number }[] = [];
    const merchants: number[] = [];
    const services: number[] = [];

    const orderClient = async () => {
      for (let i = 0; i < ORDERS_EACH; i++) {
        const id = await created('/api/order/create', { ...orderInput, service_id: service });
        orders.push({ id, answeredAt: performance.now() });
        await changed(`/api/order/complete/${id}`);
      }
    };
    // Completes the orders about to be created, before their creates are answered.
    const racer = async () => {
      while (writing) {
        const next = Math.max(0, ...orders.map(({ id }) => id)) + 1;
        await Promise.all(
          [next, next + 1, next + 2].map(async (id) => {
            const sentAt = performance.now();
            const { body } = await call<{ code: number }>('PUT', `/api/order/complete/${id}`);
            if (body.code === 200) races.push({ id, sentAt });
          }),
        );
        await sleep(2);
      }
    };
    const merchantClient = async () => {
      for (let i = 0; i < MERCHANTS_EACH; i++) {
        const id = await created('/api/merchant/add', merchantInput);
        merchants.push(id);
        await changed(`/api/merchant/approve/${id}`);
      }
    };
    const serviceClient = async () => {
      const id = await created('/api/service/add', { ...serviceInput, merchant_id: merchant });
      services.push(id);
      for (const change of SERVICE_CHANGES) await changed(`/api/service/${change}/${id}`);
    };

    const watching = watch(mark, () => last !== undefined, broken);
    const feeds = [1, 2].map(() => followFeed(mark, () => last, broken));
    const streams = instances.map((instance) => followStream(instance, mark, () => last, broken));
    const holding = holdCounter(t.pool, () => !writing);
    const sampling = mostUnnumbered(t.pool, () => !writing);
    const racing = [racer(), racer()];
    await Promise.all([
      ...Array.from({ length: ORDER_CLIENTS }, orderClient),
      ...Array.from({ length: MERCHANT_CLIENTS }, merchantClient),
      ...Array.from({ length: SERVICE_CLIENTS }, serviceClient),
    ]).finally(() => {
      writing = false;
    });
    await Promise.all(racing);
    await holding;
    const events = await everyEventAfter(mark);
    last = Number(events.at(-1)?.id);
    const reads = await watching;

    const ids = events.map(({ id }) => Number(id));

    // 1 and 2.
    expect(broken).toEqual([]);
    expect(reads).toBeGreaterThan(4);
    for (const got of await Promise.all([...feeds, ...streams])) expect(got).toEqual(ids);

    // 3: each row's events, in id order, are its changes in the order they were made.
    const ofRow = (prefix: string, row: number) =>
      events
        .filter(({ type, data }) => type.startsWith(prefix) && data.id === row)
        .map(({ type, data }) => `${type}:${data.status}`);
    for (const { id } of orders) {
      expect(ofRow('order.', id), `order ${id}`).toEqual(['order.created:0', 'order.completed:1']);
    }
    for (const id of merchants) {
      expect(ofRow('merchant.', id), `merchant ${id}`).toEqual([
        'merchant.added:0',
        'merchant.approved:1',
      ]);
    }
    for (const id of services) {
      expect(ofRow('service.', id), `service ${id}`).toEqual([
        'service.added:0',
        'service.published:1',
        'service.unpublished:0',
        'service.published:1',
      ]);
    }

    // Every change once: a create and its completion per order (a racing one
    // included), an add and an approval per merchant, an add and three
    // status changes per service.
    expect(ids).toEqual(ids.map((_id, i) => mark + 1 + i));
    expect(ids).toHaveLength(
      ORDER_CLIENTS * ORDERS_EACH * 2 +
        MERCHANT_CLIENTS * MERCHANTS_EACH * 2 +
        SERVICE_CLIENTS * (1 + SERVICE_CHANGES.length),
    );

    // The load did what it is for: publish steps numbered events, and
    // completions were sent before their orders' creates were answered.
    expect(await sampling).toBeGreaterThan(0);
    const answered = new Map(orders.map(({ id, answeredAt }) => [id, answeredAt]));
    const raced = races.filter(({ id, sentAt }) => sentAt < (answered.get(id) ?? 0));
    expect(raced.length).toBeGreaterThan(0);
  }, 60_000);
});
