import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createMetrics, type RowDataPacket } from '@svc/common';
import {
  parsePrometheusText,
  sampleValue,
  startFaultProxy,
  startNatsServer,
  type TestServer,
} from '@svc/test-kit';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventRepository } from '../src/feed/event.repository.js';
import { type EventRelay, eventRelay } from '../src/feed/event-relay.js';
import { jetStreamEvents } from '../src/feed/jetstream.js';
import { platformDatabase } from '../src/store/database.js';
import { publishCommitted } from '../src/webhooks/deliveries.js';
import {
  addMerchant,
  addService,
  createPlatformPool,
  createRecordedApp,
  createTestApp,
  orderInput,
  type TestApp,
} from './support/test-app.js';

let t: TestApp;
let nats: TestServer;
let nc: NatsConnection;
let serviceId: number;
const relays: EventRelay[] = [];
let streams = 0;

beforeAll(async () => {
  [t, nats] = await Promise.all([createTestApp({ publishing: true }), startNatsServer()]);
  // It reconnects at once after the tests' broker restarts, as the relay does.
  nc = await connect({ servers: nats.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 });
  serviceId = await addService(t.app, await addMerchant(t.app));
});
afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.stop()));
  // Every stream takes platform.events.>: the next test's stream may not overlap it.
  const jsm = await jetstreamManager(nc);
  for await (const name of jsm.streams.names()) await jsm.streams.delete(name);
});
afterAll(async () => {
  await nc.close();
  await nats.destroy();
  await t.close();
});

/** A stream of the test's own, so each test reads only its events. */
const newStream = () => `RELAY_TEST_${++streams}`;

/** A relay as main starts one, on `pool` (the test app's unless given). */
function startRelay(stream: string, pool = t.pool): EventRelay {
  const db = platformDatabase(pool, 2000);
  const relay = eventRelay(db, eventRepository(db), jetStreamEvents({ url: nats.url, stream }), {
    stream,
    logger: t.logs.logger,
  });
  relay.start();
  relays.push(relay);
  return relay;
}

async function createOrders(count: number, name: string): Promise<void> {
  for (let i = 0; i < count; i += 25) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(25, count - i) }, (_, j) =>
        request(t.app)
          .post('/api/order/create')
          .send({ ...orderInput, service_id: serviceId, user_name: `${name}${i + j}` }),
      ),
    );
    for (const answer of answers) expect(answer.body.code).toBe(200);
  }
}

/** The last event id given, once every event that has committed is numbered. */
async function lastEventId(): Promise<number> {
  while ((await publishCommitted(platformDatabase(t.pool))).full) {}
  const [rows] = await t.pool.query<RowDataPacket[]>(
    "SELECT last_id FROM event_counter WHERE name = 'events'",
  );
  return Number(rows[0]?.last_id);
}

interface Relayed {
  subject: string;
  msgId: string | undefined;
  event: { id: string; type: string; createdAt: string; data: { id: number } };
}

/** Every message of `stream`, as a durable pull consumer (docs/platform.md) reads it, until `count` came. */
async function consumed(stream: string, count: number): Promise<Relayed[]> {
  const jsm = await jetstreamManager(nc);
  await jsm.consumers.add(stream, { durable_name: 'test-reader', ack_policy: AckPolicy.Explicit });
  const consumer = await jetstream(nc).consumers.get(stream, 'test-reader');
  const read: Relayed[] = [];
  const messages = await consumer.consume();
  const timer = setTimeout(() => messages.stop(), 20_000);
  for await (const msg of messages) {
    read.push({
      subject: msg.subject,
      msgId: msg.headers?.get('Nats-Msg-Id'),
      event: msg.json(),
    });
    msg.ack();
    if (read.length >= count) break;
  }
  clearTimeout(timer);
  // Anything more would be a duplicate: the stream holds exactly what was read.
  expect((await jsm.streams.info(stream)).state.messages).toBe(read.length);
  return read;
}

/** Once the relay has caught up: every event id from the first, once each, in order, as a reader gets them. */
async function expectEveryEventOnce(stream: string): Promise<Relayed[]> {
  const last = await lastEventId();
  await expect.poll(() => position(stream), { timeout: 20_000 }).toBe(last);
  const read = await consumed(stream, last);
  expect(read.map(({ event }) => Number(event.id))).toEqual(
    Array.from({ length: last }, (_, i) => i + 1),
  );
  return read;
}

async function position(stream: string): Promise<number | undefined> {
  const [rows] = await t.pool.query<RowDataPacket[]>(
    'SELECT last_id FROM event_relays WHERE stream = ?',
    [stream],
  );
  return rows[0] === undefined ? undefined : Number(rows[0].last_id);
}

describe('the JetStream relay', () => {
  it('publishes every event in id order, as the feed gives it, its id as Nats-Msg-Id, on platform.events.<type>', async () => {
    const stream = newStream();
    await createOrders(30, 'relayed ');
    startRelay(stream);
    const read = await expectEveryEventOnce(stream);

    const feed = await request(t.app).get('/api/events?after=0&limit=500');
    expect(read.map(({ event }) => event)).toEqual(feed.body.data);
    for (const { subject, msgId, event } of read) {
      expect(subject).toBe(`platform.events.${event.type}`);
      expect(msgId).toBe(event.id);
    }
    expect(new Set(read.map(({ subject }) => subject))).toEqual(
      new Set([
        'platform.events.merchant.added',
        'platform.events.service.added',
        'platform.events.order.created',
      ]),
    );
    const info = await (await jetstreamManager(nc)).streams.info(stream);
    expect(info.config).toMatchObject({ subjects: ['platform.events.>'], storage: 'file' });
  });

  it('goes on taking creates while the broker is down, says it is behind, and catches up when it is back', async () => {
    const stream = newStream();
    const relay = startRelay(stream);
    await expect.poll(() => position(stream), { timeout: 10_000 }).toBe(await lastEventId());
    await nats.kill();
    try {
      const started = Date.now();
      await createOrders(100, 'while down ');
      expect(Date.now() - started).toBeLessThan(10_000);
      await expect.poll(() => relay.state(), { timeout: 10_000, interval: 100 }).toBe('behind');
      expect(relay.lag().events).toBeGreaterThanOrEqual(100);
      expect(relay.lag().seconds).toBeGreaterThanOrEqual(1);
      const metrics = createMetrics({ pool: t.pool });
      const app = createRecordedApp({ pool: t.pool, logger: t.logs.logger, relay, metrics });
      const ready = await request(app).get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        code: 200,
        message: 'ok',
        data: { mysql: 'up', relay: 'behind' },
      });
      const scraped = parsePrometheusText((await request(app).get('/metrics')).text);
      expect(sampleValue(scraped, 'platform_events_relay_lag_events')).toBeGreaterThanOrEqual(100);
      expect(sampleValue(scraped, 'platform_events_relay_lag_seconds')).toBeGreaterThanOrEqual(1);
    } finally {
      await nats.start();
    }
    await expectEveryEventOnce(stream);
    await expect.poll(() => relay.state(), { timeout: 5000 }).toBe('caught up');
    expect(relay.lag()).toEqual({ events: 0, seconds: 0 });
  }, 60_000);

  it('loses and repeats nothing when the broker is killed in the middle of a burst and started again', async () => {
    const stream = newStream();
    startRelay(stream);
    const burst = createOrders(400, 'burst ');
    await expect.poll(() => position(stream), { timeout: 10_000 }).toBeGreaterThan(0);
    await nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await nats.start();
    await burst;
    await expectEveryEventOnce(stream);
  }, 60_000);

  it('relays each event once with two relays at once on one database', async () => {
    const stream = newStream();
    const other = await createPlatformPool(t.settings);
    try {
      startRelay(stream);
      startRelay(stream, other);
      await createOrders(300, 'two relays ');
      await expectEveryEventOnce(stream);
    } finally {
      await Promise.all(relays.splice(0).map((relay) => relay.stop()));
      await other.end();
    }
  }, 60_000);

  it('sends nothing twice when its position never committed after JetStream acknowledged, past the de-duplication window', async () => {
    const stream = newStream();
    // A window of 100 ms: JetStream's de-duplication cannot be what saves the second relay.
    await (await jetstreamManager(nc)).streams.add({
      name: stream,
      subjects: ['platform.events.>'],
      duplicate_window: 100_000_000,
    });
    await createOrders(20, 'acknowledged ');
    const proxy = await startFaultProxy({ target: t.settings });
    const throughProxy = await createPlatformPool({
      ...t.settings,
      host: proxy.host,
      port: proxy.port,
    });
    try {
      const held = proxy.fault('UPDATE event_relays', 'stall');
      const doomed = startRelay(stream, throughProxy);
      await held.met;
      // JetStream holds the step's events (a batch: 500 at most); the position's UPDATE never reaches MySQL.
      const stored = (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
      expect(stored).toBe(Math.min(500, await lastEventId()));
      // The instance is gone: nothing more of it reaches MySQL, and its transaction is rolled back.
      proxy.refuse(true);
      held.cut();
      await doomed.stop();
      relays.splice(relays.indexOf(doomed), 1);
      expect(await position(stream)).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 300));

      startRelay(stream);
      await createOrders(5, 'after the crash ');
      await expectEveryEventOnce(stream);
    } finally {
      proxy.cutAll();
      await throughProxy.end();
      await proxy.close();
    }
  }, 60_000);

  it('sends nothing twice when another instance relayed and died before recording it, while this one held the end of its own last publish', async () => {
    const stream = newStream();
    await (await jetstreamManager(nc)).streams.add({
      name: stream,
      subjects: ['platform.events.>'],
      duplicate_window: 100_000_000,
    });
    const [proxyA, proxyB] = await Promise.all([
      startFaultProxy({ target: t.settings }),
      startFaultProxy({ target: t.settings }),
    ]);
    const poolA = await createPlatformPool({ ...t.settings, host: proxyA.host, port: proxyA.port });
    const poolB = await createPlatformPool({ ...t.settings, host: proxyB.host, port: proxyB.port });
    try {
      await createOrders(20, 'relayed by A ');
      startRelay(stream, poolA);
      await expect.poll(() => position(stream), { timeout: 10_000 }).toBe(await lastEventId());
      // A's next step waits before it takes the position, the end of its last publish in memory.
      const waiting = proxyA.fault('FOR UPDATE NOWAIT', 'stall');
      await createOrders(10, 'relayed by B ');
      await waiting.met;
      const held = proxyB.fault('UPDATE event_relays', 'stall');
      const doomed = startRelay(stream, poolB);
      await held.met;
      expect((await (await jetstreamManager(nc)).streams.info(stream)).state.messages).toBe(
        await lastEventId(),
      );
      proxyB.refuse(true);
      held.cut();
      await doomed.stop();
      relays.splice(relays.indexOf(doomed), 1);
      await new Promise((resolve) => setTimeout(resolve, 300));

      // A starts after the end it remembers: JetStream takes only what follows the stream's real end.
      waiting.release();
      await createOrders(5, 'after B died ');
      await expectEveryEventOnce(stream);
    } finally {
      proxyA.cutAll();
      proxyB.cutAll();
      await Promise.all(relays.splice(0).map((relay) => relay.stop()));
      await Promise.all([poolA.end(), poolB.end()]);
      await Promise.all([proxyA.close(), proxyB.close()]);
    }
  }, 60_000);
});
