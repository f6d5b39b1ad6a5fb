import { request } from 'node:http';
import { createMysqlPool, type Pool, type RowDataPacket } from '@svc/common';
import { createTestDatabase, mysqlVariables, type TestDatabase } from '@svc/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from './support/service-process.js';

/**
 * Idempotency-Keys and cursor pages on real platform processes sharing one
 * MariaDB: across instances, across a restart, and when an instance is killed
 * in the middle of a burst of keyed creates.
 */

interface Answer {
  status: number;
  body: { code: number; data?: { id: number } };
  replayed: boolean;
}

async function createOrder(
  service: ServiceProcess,
  key: string,
  body: object,
): Promise<Answer | undefined> {
  try {
    const res = await fetch(`${service.url}/api/order/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as Answer['body'],
      replayed: res.headers.get('idempotent-replayed') === 'true',
    };
  } catch {
    return undefined;
  }
}

/** Sends until an answer other than 409 comes back (or 40 tries), as a client retrying would. */
async function createUntilAnswered(service: ServiceProcess, key: string, body: object) {
  for (let attempt = 0; attempt < 40; attempt++) {
    const answer = await createOrder(service, key, body);
    if (answer && answer.status !== 409) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no answer for ${key}`);
}

let db: TestDatabase;
let pool: Pool;
let running: ServiceProcess[] = [];
let serviceId: number;

const start = async (env: Record<string, string> = {}) => {
  const service = await startService('platform', { ...mysqlVariables(db.settings), ...env });
  running.push(service);
  return service;
};

async function ordersNamed(): Promise<Map<string, number[]>> {
  const [rows] = await pool.query<RowDataPacket[]>('SELECT id, user_name FROM orders ORDER BY id');
  const byName = new Map<string, number[]>();
  for (const row of rows) byName.set(row.user_name, [...(byName.get(row.user_name) ?? []), row.id]);
  return byName;
}

beforeAll(async () => {
  db = await createTestDatabase();
  const first = await start();
  const merchant = await fetch(`${first.url}/api/merchant/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: '张三家政', address: '北京市朝阳区1号', phone: '13800138000' }),
  }).then((res) => res.json() as Promise<{ data: { id: number } }>);
  const service = await fetch(`${first.url}/api/service/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      merchant_id: merchant.data.id,
      name: '日常保洁',
      price: 150,
      category: '保洁',
    }),
  }).then((res) => res.json() as Promise<{ data: { id: number } }>);
  serviceId = service.data.id;
  pool = await createMysqlPool(db.settings);
});
afterEach(async () => {
  await Promise.all(running.map((service) => service.stop()));
  running = [];
  await pool.query('DELETE FROM orders');
  await pool.query('DELETE FROM idempotency_keys');
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

const order = (name: string) => ({
  service_id: serviceId,
  user_name: name,
  user_phone: '13912345678',
});

describe('Idempotency-Key on real processes', () => {
  it('writes one row per key when two instances take each key several times at once', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const keys = Array.from({ length: 40 }, (_, i) => `two-${i}`);
    const answers = await Promise.all(
      keys.flatMap((key) =>
        [a, b, a, b].map(async (service) => ({
          key,
          answer: await createOrder(service, key, order(key)),
        })),
      ),
    );
    const named = await ordersNamed();
    for (const key of keys) {
      expect(named.get(key), key).toHaveLength(1);
      const ofKey = answers.filter((entry) => entry.key === key).map((entry) => entry.answer);
      for (const answer of ofKey) expect([200, 409]).toContain(answer?.status);
      const created = ofKey.filter((answer) => answer?.status === 200);
      expect(created.filter((answer) => !answer?.replayed)).toHaveLength(1);
      for (const answer of created) expect(answer?.body.data?.id).toBe(named.get(key)?.[0]);
    }
    const [[kept]] = await pool.query<RowDataPacket[]>(
      'SELECT COUNT(*) AS n FROM idempotency_keys',
    );
    expect(kept?.n).toBe(keys.length);
  });

  it('maps every retried key to exactly one row when the instance is killed mid-burst, and replays after a restart', async () => {
    const doomed = await start();
    const keys = Array.from({ length: 400 }, (_, i) => `crash-${i}`);
    const firstAnswers = new Map<string, Answer | undefined>();
    let answered = 0;
    let next = 0;
    const worker = async () => {
      while (next < keys.length) {
        const key = keys[next++] as string;
        const answer = await createOrder(doomed, key, order(key));
        firstAnswers.set(key, answer);
        if (answer) answered += 1;
        // Killed once a share of the burst is answered, with the rest in flight or unsent.
        if (answered === 100) doomed.signal('SIGKILL');
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    await doomed.exited;
    const lost = keys.filter((key) => firstAnswers.get(key) === undefined);
    expect(answered).toBeGreaterThanOrEqual(100);
    expect(lost.length).toBeGreaterThan(0);

    const [restarted, other] = await Promise.all([start(), start()]);
    const retries = await Promise.all(
      keys.map(async (key, i) => ({
        key,
        answer: await createUntilAnswered(i % 2 ? restarted : other, key, order(key)),
      })),
    );
    const named = await ordersNamed();
    for (const { key, answer } of retries) {
      const rows = named.get(key) ?? [];
      expect(rows, key).toHaveLength(1);
      expect(answer.status).toBe(200);
      expect(answer.body.data?.id).toBe(rows[0]);
      const first = firstAnswers.get(key);
      if (first?.status === 200) {
        expect(answer.replayed, key).toBe(true);
        expect(first.body.data?.id).toBe(rows[0]);
      }
    }
    expect([...named.keys()].sort()).toEqual([...keys].sort());
  });

  it('answers the retry of a client that hung up before its answer with the order it wrote', async () => {
    const service = await start();
    const sent = new Promise<void>((resolve) => {
      const req = request(`${service.url}/api/order/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'hung-up' },
      });
      req.on('error', () => resolve());
      req.end(JSON.stringify(order('hung-up')), () => {
        req.destroy();
        resolve();
      });
    });
    await sent;
    let written: number[] | undefined;
    for (const started = Date.now(); !written; ) {
      written = (await ordersNamed()).get('hung-up');
      expect(Date.now() - started).toBeLessThan(5000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const retry = await createUntilAnswered(service, 'hung-up', order('hung-up'));
    expect(retry).toEqual({
      status: 200,
      body: { code: 200, message: '创建定单成功', data: { id: written[0] } },
      replayed: true,
    });
    expect((await ordersNamed()).get('hung-up')).toHaveLength(1);
  });

  it('deletes expired keys from the database while it runs, and then takes the key afresh', async () => {
    const service = await start({ IDEMPOTENCY_TTL_SECONDS: '1' });
    const first = await createOrder(service, 'short', order('short'));
    expect(first?.status).toBe(200);
    const keyRows = async () => {
      const [[row]] = await pool.query<RowDataPacket[]>(
        'SELECT COUNT(*) AS n FROM idempotency_keys',
      );
      return Number(row?.n);
    };
    expect(await keyRows()).toBe(1);
    const started = Date.now();
    while ((await keyRows()) > 0) {
      expect(Date.now() - started).toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const again = await createOrder(service, 'short', order('short'));
    expect(again?.replayed).toBe(false);
    expect(again?.body.data?.id).not.toBe(first?.body.data?.id);
  });
});

describe('cursor pages on real processes', () => {
  it('walks every order that existed when the walk began exactly once while another instance takes orders', async () => {
    await pool.query(
      `INSERT INTO orders (service_id, user_name, user_phone, create_time)
       SELECT ?, CONCAT('seed-', n), '1', TIMESTAMP('2026-01-01') + INTERVAL (n DIV 3) SECOND
       FROM (SELECT a.d + 10 * b.d + 100 * c.d AS n
             FROM (SELECT 0 d UNION SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION
                   SELECT 5 UNION SELECT 6 UNION SELECT 7 UNION SELECT 8 UNION SELECT 9) a,
                  (SELECT 0 d UNION SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION
                   SELECT 5 UNION SELECT 6 UNION SELECT 7 UNION SELECT 8 UNION SELECT 9) b,
                  (SELECT 0 d UNION SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4) c) x`,
      [serviceId],
    );
    const [seeded] = await pool.query<RowDataPacket[]>(
      'SELECT id FROM orders ORDER BY create_time DESC, id DESC',
    );
    const [reader, writer] = await Promise.all([start(), start()]);
    let walking = true;
    let written = 0;
    const writing = (async () => {
      while (walking) {
        await createOrder(writer, `during-${written}`, order(`during-${written++}`));
      }
    })();

    const seen: number[] = [];
    let url: string | undefined = `${reader.url}/api/order/list?pageSize=37`;
    while (url) {
      const res = await fetch(url);
      const page = (await res.json()) as { code: number; data: { id: number }[] };
      expect(page.code).toBe(200);
      seen.push(...page.data.map((row) => row.id));
      const cursor = res.headers.get('x-next-cursor');
      url = cursor ? `${reader.url}/api/order/list?pageSize=37&cursor=${cursor}` : undefined;
    }
    walking = false;
    await writing;
    expect(written).toBeGreaterThan(0);
    const before = seeded.map((row) => row.id as number);
    expect(seen.filter((id) => before.includes(id))).toEqual(before);
    expect(new Set(seen).size).toBe(seen.length);

    const tampered = await fetch(`${reader.url}/api/order/list?cursor=AAAA${'A'.repeat(31)}`);
    expect(await tampered.json()).toEqual({
      code: 400,
      message: '获取失败',
      error: 'cursor is malformed or was altered: send the X-Next-Cursor of the page before',
    });
  });
});
