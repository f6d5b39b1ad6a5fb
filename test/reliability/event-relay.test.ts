import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createMysqlPool, type Pool, type RowDataPacket } from '@svc/common';
import {
  createTestDatabase,
  type FaultProxy,
  mysqlVariables,
  startFaultProxy,
  startNatsServer,
  type TestDatabase,
  type TestServer,
} from '@svc/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from './support/service-process.js';

/**
 * The JetStream relay on real processes sharing one MariaDB and one
 * nats-server: an instance SIGKILLed after JetStream acknowledged its events
 * and before its position committed, the broker killed in the middle of a
 * burst, and two instances relaying at once. A durable consumer must see
 * every event once, in id order.
 */

const STREAM = 'PLATFORM_EVENTS';

let db: TestDatabase;
let pool: Pool;
let nats: TestServer;
let nc: NatsConnection;
let serviceId: number;
let running: ServiceProcess[] = [];
let proxy: FaultProxy | undefined;

beforeAll(async () => {
  [db, nats] = await Promise.all([createTestDatabase(), startNatsServer()]);
  pool = await createMysqlPool(db.settings);
  // It reconnects at once after the tests' broker restarts, as the relay does.
  nc = await connect({ servers: nats.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 });
  const first = await start();
  const merchant = await post(first, '/api/merchant/add', { name: 'm', address: 'a', phone: '1' });
  const service = await post(first, '/api/service/add', {
    merchant_id: merchant.data.id,
    name: 's',
    price: 10,
    category: '保洁',
    stock: 5,
  });
  serviceId = service.data.id;
}, 60_000);
afterEach(async () => {
  await Promise.all(running.map((service) => service.stop()));
  running = [];
  await proxy?.close();
  proxy = undefined;
});
afterAll(async () => {
  await nc?.close();
  await pool?.end();
  await nats?.destroy();
  await db?.drop();
});

async function start(env: Record<string, string> = {}) {
  const service = await startService('platform', {
    ...mysqlVariables(db.settings),
    EVENTS_NATS_URL: nats.url,
    ...env,
  });
  running.push(service);
  return service;
}

async function post(service: ServiceProcess, path: string, body: object) {
  const res = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { code: number; data: { id: number } };
}

/** `count` creates, 16 at a time, spread over `services`; the answers' codes. */
async function burst(services: ServiceProcess[], count: number, name: string) {
  const codes: number[] = [];
  let next = 0;
  const worker = async (w: number) => {
    while (next < count) {
      const i = next++;
      const target = services[(i + w) % services.length] as ServiceProcess;
      const answer = await post(target, '/api/order/create', {
        service_id: serviceId,
        user_name: `${name}${i}`,
        user_phone: '1',
      }).catch(() => ({ code: 0 }));
      codes.push(answer.code);
    }
  };
  await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
  return codes;
}

/** The last event id given, once the instances' publish steps have numbered every committed event. */
async function lastEventId(): Promise<number> {
  const unnumbered = async () => {
    const [rows] = await pool.query<RowDataPacket[]>(
      'SELECT COUNT(*) AS n FROM events WHERE id IS NULL',
    );
    return Number(rows[0]?.n);
  };
  await expect.poll(unnumbered, { timeout: 10_000 }).toBe(0);
  const [rows] = await pool.query<RowDataPacket[]>(
    "SELECT last_id FROM event_counter WHERE name = 'events'",
  );
  return Number(rows[0]?.last_id);
}

async function position(): Promise<number> {
  const [rows] = await pool.query<RowDataPacket[]>(
    'SELECT last_id FROM event_relays WHERE stream = ?',
    [STREAM],
  );
  return Number(rows[0]?.last_id ?? -1);
}

let readers = 0;

/** Every event id in the stream, as a new durable consumer reads them, once the relay has caught up. */
async function consumedIds(): Promise<number[]> {
  const last = await lastEventId();
  await expect.poll(position, { timeout: 30_000 }).toBe(last);
  const jsm = await jetstreamManager(nc);
  const name = `reader-${++readers}`;
  await jsm.consumers.add(STREAM, { durable_name: name, ack_policy: AckPolicy.Explicit });
  const messages = await (await jetstream(nc).consumers.get(STREAM, name)).consume();
  const timer = setTimeout(() => messages.stop(), 20_000);
  const ids: number[] = [];
  for await (const msg of messages) {
    ids.push(Number(msg.headers?.get('Nats-Msg-Id')));
    msg.ack();
    if (ids.length >= last) break;
  }
  clearTimeout(timer);
  expect((await jsm.streams.info(STREAM)).state.messages).toBe(ids.length);
  return ids;
}

const upTo = (last: number) => Array.from({ length: last }, (_, i) => i + 1);

describe('the JetStream relay, on real processes', () => {
  it('sends nothing twice after an instance is killed between the acknowledgement and its commit', async () => {
    await expect.poll(position, { timeout: 20_000 }).toBe(await lastEventId());
    await Promise.all(running.map((service) => service.stop()));
    running = [];
    await burst([await start({ EVENTS_NATS_URL: 'nats://127.0.0.1:9' })], 100, 'unrelayed ');
    await Promise.all(running.map((service) => service.stop()));
    running = [];

    // The doomed instance reaches MySQL through a proxy that holds the position's UPDATE.
    proxy = await startFaultProxy({ target: db.settings });
    const held = proxy.fault('UPDATE event_relays', 'stall');
    const doomed = await start({ MYSQL_HOST: proxy.host, MYSQL_PORT: String(proxy.port) });
    await held.met;
    const stored = (await (await jetstreamManager(nc)).streams.info(STREAM)).state.messages;
    expect(stored).toBe(await lastEventId());
    doomed.signal('SIGKILL');
    await doomed.exited;
    held.cut();
    running = running.filter((service) => service !== doomed);
    await expect.poll(position).toBeLessThan(stored);

    const second = await start();
    await burst([second], 20, 'after the kill ');
    expect(await consumedIds()).toEqual(upTo(await lastEventId()));
  }, 90_000);

  it('loses and repeats nothing when the broker is killed in the middle of a burst, with two instances relaying', async () => {
    const services = [await start(), await start()];
    const creates = burst(services, 600, 'burst ');
    await expect.poll(position, { timeout: 10_000 }).toBeGreaterThan(0);
    await nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ready = await fetch(`${services[0]?.url}/readyz`);
    expect(ready.status).toBe(200);
    await nats.start();
    const codes = await creates;
    expect(codes.filter((code) => code !== 200)).toEqual([]);
    expect(await consumedIds()).toEqual(upTo(await lastEventId()));
  }, 90_000);
});
