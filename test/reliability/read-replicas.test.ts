import { randomBytes } from 'node:crypto';
import { createMysqlPool, type Pool, type RowDataPacket } from '@svc/common';
import {
  type FaultProxy,
  mysqlVariables,
  parsePrometheusText,
  sampleValue,
  startFaultProxy,
  startMariaDbReplication,
  type TestMariaDbReplication,
} from '@svc/test-kit';
import mysql from 'mysql2/promise';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from './support/service-process.js';

/**
 * MYSQL_REPLICA_HOSTS on real platform processes, a real MariaDB primary and
 * a GTID replica on loopback: where the list reads land (told by each
 * server's own counters), read-your-writes across instances, the wait's
 * bound, and a replica or primary that dies.
 */

const WAIT_MS = 100;
const DATABASE = `replicas_${randomBytes(4).toString('hex')}`;

let replication: TestMariaDbReplication;
let primaryPool: Pool;
let running: ServiceProcess[] = [];
let proxy: FaultProxy | undefined;
let serviceId: number;

/**
 * Most tests here count each list's reads, so by default nothing is kept and
 * every list reads its rows; `KEPT` gives the shipped default, with which an
 * unchanged list reads nothing (services/platform/test/list-etags.test.ts).
 */
const KEPT = { LIST_CACHE_MB: '32' };

const start = async (replicaPort = replication.replica.port, env: Record<string, string> = {}) => {
  const service = await startService('platform', {
    ...mysqlVariables(replication.primary.settings(DATABASE)),
    MYSQL_REPLICA_HOSTS: `127.0.0.1:${replicaPort}`,
    REPLICA_WAIT_MS: String(WAIT_MS),
    LIST_CACHE_MB: '0',
    ...env,
  });
  running.push(service);
  return service;
};

interface Listed {
  status: number;
  body: { code: number; data: { id: number; name?: string }[] };
  ms: number;
}

async function get(service: ServiceProcess, path: string): Promise<Listed> {
  const began = performance.now();
  const res = await fetch(`${service.url}${path}`);
  const body = (await res.json()) as Listed['body'];
  return { status: res.status, body, ms: performance.now() - began };
}

async function post(service: ServiceProcess, path: string, body: object) {
  const res = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { code: number; data: { id: number } } };
}

const addMerchant = (service: ServiceProcess, name: string) =>
  post(service, '/api/merchant/add', { name, address: '北京市朝阳区1号', phone: '13800138000' });

/** The platform's own count of list reads that went to `target`. */
async function readsOn(service: ServiceProcess, target: 'replica' | 'primary') {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return sampleValue(parsePrometheusText(text), 'mysql_list_reads_total', { target });
}

/** A server's own counters from SHOW GLOBAL STATUS whose names are LIKE `pattern`, summed. */
async function status(port: number, pattern: string): Promise<number> {
  const conn = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
  try {
    const [rows] = await conn.query<RowDataPacket[]>('SHOW GLOBAL STATUS LIKE ?', [pattern]);
    return rows.reduce((sum, row) => sum + Number(row.Value), 0);
  } finally {
    await conn.end();
  }
}

/** Rows a server's tables have handed out since it started: the lists' work, which no position read adds to. */
const rowsRead = (port: number) => status(port, 'Handler_read%');

/** The merchant list as the primary holds it, in id order. */
async function merchantIds(): Promise<number[]> {
  const [rows] = await primaryPool.query<RowDataPacket[]>('SELECT id FROM merchants ORDER BY id');
  return rows.map((row) => row.id as number);
}

const ids = (listed: Listed) => listed.body.data.map((row) => row.id);

/**
 * `during`, with the replica's SQL thread stopped; then, once the replica has
 * caught up, the reader's next list reads from it.
 */
async function whileReplicaAppliesNothing(reader: ServiceProcess, during: () => Promise<void>) {
  await replication.stopReplicaSqlThread();
  try {
    await during();
  } finally {
    await replication.startReplicaSqlThread();
  }
  await replication.replicaCaughtUp();
  const before = await readsOn(reader, 'replica');
  await get(reader, '/api/merchant/list');
  expect(await readsOn(reader, 'replica')).toBe(before + 1);
}

beforeAll(async () => {
  replication = await startMariaDbReplication();
  const first = await start();
  for (let i = 0; i < 200; i++) await addMerchant(first, `商户${i}`);
  const merchant = await addMerchant(first, '张三家政');
  const service = await post(first, '/api/service/add', {
    merchant_id: merchant.body.data.id,
    name: '日常保洁',
    price: 150,
    category: '保洁',
  });
  serviceId = service.body.data.id;
  for (let i = 0; i < 50; i++) {
    await post(first, '/api/order/create', {
      service_id: serviceId,
      user_name: `客户${i}`,
      user_phone: '13912345678',
    });
  }
  primaryPool = await createMysqlPool(replication.primary.settings(DATABASE));
  await replication.replicaCaughtUp();
});
afterEach(async () => {
  await Promise.all(running.map((service) => service.stop()));
  running = [];
  await proxy?.close();
  proxy = undefined;
});
afterAll(async () => {
  await primaryPool?.end();
  await replication?.stop();
});

describe('list reads on a replica', () => {
  it('runs every list on the replica, as both servers count it, and answers what the primary holds', async () => {
    const service = await start();
    const paths = [
      '/api/merchant/list',
      '/api/merchant/list?page=2&pageSize=20',
      '/api/service/list',
      '/api/order/list',
      '/api/order/list?page=1&pageSize=10',
      '/api/order/list?pageSize=10',
    ];
    const primaryBefore = await rowsRead(replication.primary.port);
    const replicaBefore = await rowsRead(replication.replica.port);
    for (let round = 0; round < 10; round++) {
      for (const path of paths) expect((await get(service, path)).status).toBe(200);
    }
    // Counted before merchantIds below reads the primary itself.
    const primaryRead = (await rowsRead(replication.primary.port)) - primaryBefore;
    const replicaRead = (await rowsRead(replication.replica.port)) - replicaBefore;
    const whole = await get(service, '/api/merchant/list');
    expect(ids(whole)).toEqual(await merchantIds());
    const cursor = await fetch(`${service.url}/api/order/list?pageSize=10`);
    const next = await get(
      service,
      `/api/order/list?pageSize=10&cursor=${cursor.headers.get('x-next-cursor')}`,
    );
    expect(next.body.data).toHaveLength(10);

    // Ten rounds read some 3000 merchant rows and 1000 order rows on the replica.
    expect(replicaRead).toBeGreaterThan(4000);
    expect(primaryRead).toBeLessThan(500);
    expect(await readsOn(service, 'primary')).toBe(0);
    expect(await readsOn(service, 'replica')).toBeGreaterThanOrEqual(60);
  });

  it('sends no wait to a replica already seen at the primary position: without writes a list is one statement there', async () => {
    const service = await start();
    await get(service, '/api/merchant/list');
    const selects = () => status(replication.replica.port, 'Com_select');
    const before = await selects();
    for (let i = 0; i < 10; i++)
      expect((await get(service, '/api/merchant/list')).status).toBe(200);
    expect((await selects()) - before).toBe(10);
    // After a write the list runs early, is found older than the primary, and runs again after the wait.
    // The write goes straight to the primary: one made through the service also has its event
    // published a moment later (the publish step writes its counter row), a second write that may
    // land between the two lists below and make the second wait too (CI met that once).
    await primaryPool.query(
      "INSERT INTO merchants (name, address, phone) VALUES ('新写入', '北京市朝阳区1号', '13800138000')",
    );
    await get(service, '/api/merchant/list');
    expect((await selects()) - before).toBe(13);
    await get(service, '/api/merchant/list');
    expect((await selects()) - before).toBe(14);
  });

  it('waits again on a replica its pool reconnects to, which may have come back from older data', async () => {
    const service = await start();
    for (let i = 0; i < 3; i++) await get(service, '/api/merchant/list');
    // Closes the service's connections on the replica, as the replica's restart would.
    const conn = await mysql.createConnection({
      host: '127.0.0.1',
      port: replication.replica.port,
      user: 'root',
    });
    try {
      const [rows] = await conn.query<RowDataPacket[]>(
        'SELECT id FROM information_schema.PROCESSLIST WHERE db = ? AND id <> CONNECTION_ID()',
        [DATABASE],
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) await conn.query('KILL ?', [row.id]);
    } finally {
      await conn.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const selects = () => status(replication.replica.port, 'Com_select');
    const before = await selects();
    expect((await get(service, '/api/merchant/list')).status).toBe(200);
    // The wait, then the list: nothing assumed of the server behind the new connection.
    expect((await selects()) - before).toBe(2);
    expect(await readsOn(service, 'primary')).toBe(0);
  });

  it("reports the replica's delay: seconds while it applies, +Inf while it applies nothing", async () => {
    const service = await start();
    const delay = async () =>
      parsePrometheusText(await (await fetch(`${service.url}/metrics`)).text()).find(
        (sample) =>
          sample.name === 'mysql_replica_delay_seconds' &&
          sample.labels.replica === `127.0.0.1:${replication.replica.port}`,
      )?.value;
    const healthy = await delay();
    expect(healthy).toBeGreaterThanOrEqual(0);
    expect(healthy).toBeLessThan(5);
    await whileReplicaAppliesNothing(service, async () => {
      expect(await delay()).toBe(Number.POSITIVE_INFINITY);
    });
  });

  it.each([
    ['nothing kept', {}],
    ['kept lists', KEPT],
  ])(
    'shows every write another instance answered, on the replica while it keeps up (%s)',
    async (_, env) => {
      const [writer, reader] = await Promise.all([start(undefined, env), start(undefined, env)]);
      for (let i = 0; i < 20; i++) {
        const added = await addMerchant(writer, `新商户${i}`);
        expect(ids(await get(reader, '/api/merchant/list'))).toContain(added.body.data.id);
        const last = Math.ceil((await merchantIds()).length / 100);
        const page = await get(reader, `/api/merchant/list?page=${last}&pageSize=100`);
        expect(ids(page)).toContain(added.body.data.id);
      }
      expect(await readsOn(reader, 'replica')).toBeGreaterThan(await readsOn(reader, 'primary'));
    },
  );

  it('reads from the primary, after at most REPLICA_WAIT_MS, while the replica applies nothing', async () => {
    const [writer, reader] = await Promise.all([start(), start()]);
    const healthy: number[] = [];
    // The first lists of a fresh process open connections and warm its code: not measured.
    for (let i = 0; i < 20; i++) healthy.push((await get(reader, '/api/merchant/list')).ms);
    healthy.splice(0, 10);
    await whileReplicaAppliesNothing(reader, async () => {
      const lagging: number[] = [];
      for (let i = 0; i < 10; i++) {
        const added = await addMerchant(writer, `滞后商户${i}`);
        const listed = await get(reader, '/api/merchant/list');
        expect(ids(listed)).toContain(added.body.data.id);
        lagging.push(listed.ms);
      }
      const median = (ms: number[]) => ms.sort((a, b) => a - b)[ms.length >> 1] as number;
      console.log(
        `merchant list p50: ${median(healthy).toFixed(1)} ms on a replica that keeps up, ${median(lagging).toFixed(1)} ms on one that applies nothing (REPLICA_WAIT_MS=${WAIT_MS})`,
      );
      expect(Math.min(...lagging)).toBeGreaterThanOrEqual(WAIT_MS);
      expect(median(lagging) - median(healthy)).toBeLessThan(WAIT_MS + 100);
      expect(await readsOn(reader, 'primary')).toBe(10);
    });
  });

  it('waits the whole REPLICA_WAIT_MS when it is longer than MYSQL_QUERY_TIMEOUT_MS, and keeps the replica', async () => {
    const env = { REPLICA_WAIT_MS: '600', MYSQL_QUERY_TIMEOUT_MS: '300' };
    const [writer, reader] = await Promise.all([start(undefined, env), start(undefined, env)]);
    await get(reader, '/api/merchant/list');
    // Not taken for down: once caught up, the next list reads from the replica at once.
    await whileReplicaAppliesNothing(reader, async () => {
      await addMerchant(writer, '久等商户');
      const listed = await get(reader, '/api/merchant/list');
      expect(listed.status).toBe(200);
      expect(listed.ms).toBeGreaterThanOrEqual(600);
      expect(await readsOn(reader, 'primary')).toBe(1);
    });
  });
});

describe('faults', () => {
  it('costs no request while the replica is killed, and reads from it within 10 s of its return', async () => {
    const service = await start();
    const failures: unknown[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const listed = await get(service, '/api/merchant/list?page=1&pageSize=5').catch(
          (err) => err,
        );
        if (listed?.status !== 200 || listed.body.data.length !== 5) failures.push(listed);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await replication.killReplica();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const downSince = await readsOn(service, 'replica');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await readsOn(service, 'replica')).toBe(downSince);
    await replication.restartReplica();
    const back = Date.now();
    while ((await readsOn(service, 'replica')) === downSince) {
      expect(Date.now() - back).toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    console.log(`lists on the replica again ${Date.now() - back} ms after its restart`);
    reading = false;
    await reader;
    expect(failures).toEqual([]);
  });

  it.each([
    ['nothing kept', {}],
    ['kept lists', KEPT],
  ])(
    'keeps answering lists from the replica while the primary is down; writes answer as MySQL down (%s)',
    async (_, env) => {
      const service = await start(undefined, env);
      const expected = await merchantIds();
      await replication.replicaCaughtUp();
      await replication.killPrimary();
      try {
        const whole = await get(service, '/api/merchant/list');
        expect(whole.status).toBe(200);
        expect(ids(whole)).toEqual(expected);
        const page = await get(service, '/api/merchant/list?page=2&pageSize=100');
        expect(ids(page)).toEqual(expected.slice(100, 200));
        const orders = await get(service, '/api/order/list');
        expect(orders.status).toBe(200);
        expect(orders.body.data.length).toBeGreaterThanOrEqual(50);
        const added = await addMerchant(service, '主库宕机');
        expect(added.body).toEqual({
          code: 500,
          message: '添加失败',
          data: 'storage is unavailable',
        });
      } finally {
        await replication.restartPrimary();
      }
      const added = await addMerchant(service, '主库恢复');
      expect(added.body.code).toBe(200);
    },
  );

  it.each([
    ['nothing kept', {}],
    ['kept lists', KEPT],
  ])('holds read-your-writes through a replica 20 ms away each way (%s)', async (_, env) => {
    proxy = await startFaultProxy({ target: replication.replica, delayMs: 20 });
    const [writer, reader] = await Promise.all([start(undefined, env), start(proxy.port, env)]);
    const took = [];
    for (let i = 0; i < 10; i++) {
      const added = await addMerchant(writer, `远端商户${i}`);
      const listed = await get(reader, '/api/merchant/list');
      expect(ids(listed)).toContain(added.body.data.id);
      took.push(listed.ms);
    }
    took.sort((a, b) => a - b);
    console.log(
      `merchant list p50 through the 20 ms proxy, right after a write: ${took[5]?.toFixed(1)} ms`,
    );
    await replication.replicaCaughtUp();
    expect(ids(await get(reader, '/api/merchant/list'))).toEqual(await merchantIds());
    expect(await readsOn(reader, 'replica')).toBeGreaterThanOrEqual(5);
  });
});
