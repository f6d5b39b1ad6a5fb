import { createMysqlPool, type Pool, type RowDataPacket } from '@svc/common';
import { createTestDatabase, createTestRedis, mysqlVariables } from '@svc/test-kit';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { completedIds, loadWhile } from './support/load.js';
import type { Outcome } from './support/requests.js';
import { logEntries, type ServiceProcess, startService } from './support/service-process.js';

const GRACE_MS = 5000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGTERM after `afterMs` of load; the time the process took to exit, and its code. */
async function terminateUnderLoad(service: ServiceProcess, afterMs: number) {
  await sleep(afterMs);
  const started = Date.now();
  service.signal('SIGTERM');
  const code = await service.exited;
  return { code, ms: Date.now() - started };
}

/**
 * What "graceful" means: the process exits 0 within its grace period; once it
 * stops accepting, connections are refused; every request the service logged
 * as completed reached its client whole; no client saw a cut response.
 */
function expectGraceful(
  outcomes: Outcome[],
  service: ServiceProcess,
  exit: { code: number | null; ms: number },
) {
  expect(exit.code).toBe(0);
  expect(exit.ms).toBeLessThan(GRACE_MS + 2000);
  const answered = outcomes.filter((o) => o.kind === 'answered');
  expect(answered.length).toBeGreaterThan(20);
  expect(outcomes.some((o) => o.kind === 'refused')).toBe(true);
  const completed = completedIds(logEntries(service.output()));
  for (const outcome of answered) expect(completed.has(outcome.id)).toBe(true);
  // A connection reset before the service read the request is a refusal in all but name;
  // one the service answered and the client lost would be a broken promise.
  for (const outcome of outcomes.filter((o) => o.kind === 'failed')) {
    expect(
      completed.has(outcome.id),
      `${JSON.stringify(outcome)} was completed by the service`,
    ).toBe(false);
  }
  expect(service.output()).toContain('"msg":"stopped"');
}

let running: ServiceProcess[] = [];
afterEach(async () => {
  await Promise.all(running.map((service) => service.stop()));
  running = [];
});

describe('graceful shutdown under load', () => {
  it('platform: finishes accepted requests, refuses new ones, writes nothing half, exits 0', async () => {
    const db = await createTestDatabase();
    const service = await startService('platform', {
      ...mysqlVariables(db.settings),
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
    running.push(service);
    const pool: Pool = await createMysqlPool(db.settings);
    await pool.query(
      "INSERT INTO merchants (id, name, address, phone) VALUES (1, 'm', 'a', '13800000000')",
    );
    await pool.query(
      "INSERT INTO services (id, merchant_id, name, price, category) VALUES (1, 1, 's', '9.90', '保洁')",
    );
    const seeded = Array.from({ length: 3000 }, (_, i) => [1, `user${i}`, '13900000000', i % 3]);
    await pool.query('INSERT INTO orders (service_id, user_name, user_phone, status) VALUES ?', [
      seeded,
    ]);

    let exit = { code: null as number | null, ms: 0 };
    const outcomes = await loadWhile(
      service,
      {
        workers: 12,
        maxMs: 20_000,
        next: (i) =>
          i % 2 === 0
            ? { path: '/api/order/list?status=0' }
            : {
                method: 'POST',
                path: '/api/order/create',
                body: { service_id: 1, user_name: `load${i}`, user_phone: '13912345678' },
              },
      },
      async () => {
        exit = await terminateUnderLoad(service, 1500);
      },
    );

    expectGraceful(outcomes, service, exit);
    const answered = outcomes.filter((o) => o.kind === 'answered');
    for (const outcome of answered)
      expect(outcome).toMatchObject({ status: 200, body: { code: 200 } });
    const created = answered.filter(
      (o) => (o.body as { message?: string }).message === '创建定单成功',
    ).length;
    const [rows] = await pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM orders');
    expect(Number(rows[0]?.n)).toBe(3000 + created);
    await pool.end();
    await db.drop();
  });

  it('auth: finishes accepted logins and guarded requests, keeps every issued session, exits 0', async () => {
    const db = await createTestDatabase();
    const redisDb = await createTestRedis();
    const service = await startService('auth', {
      ...mysqlVariables(db.settings),
      REDIS_URL: redisDb.url,
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      LOGIN_MAX_FAILURES: '10000',
    });
    running.push(service);
    const credentials = { username: 'shutdown-user', password: 'correct horse battery' };
    const post = (path: string) =>
      fetch(service.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(credentials),
      });
    expect((await post('/api/user/register')).status).toBe(200);
    const { data } = (await (await post('/api/user/login')).json()) as { data: { token: string } };

    let exit = { code: null as number | null, ms: 0 };
    const outcomes = await loadWhile(
      service,
      {
        workers: 12,
        maxMs: 20_000,
        next: (i) =>
          i % 3 === 0
            ? { method: 'POST', path: '/api/user/login', body: credentials }
            : { path: '/api/user/me', headers: { authorization: `Bearer ${data.token}` } },
      },
      async () => {
        exit = await terminateUnderLoad(service, 1500);
      },
    );

    expectGraceful(outcomes, service, exit);
    const answered = outcomes.filter((o) => o.kind === 'answered');
    for (const outcome of answered)
      expect(outcome).toMatchObject({ status: 200, body: { code: 200 } });
    const logins = answered.filter(
      (o) => (o.body as { message?: string }).message === '登录成功',
    ).length;
    expect(logins).toBeGreaterThan(0);
    const redis = new Redis(redisDb.url);
    const sessions = (await redis.keys('session:*')).filter(
      (key) => !key.startsWith('session:user:'),
    );
    expect(sessions.length).toBe(1 + logins);
    redis.disconnect();
    await db.drop();
  });
});

describe('a second instance starting beside a serving one', () => {
  it('migrates without disturbing the first, and migrations run once when both start together', async () => {
    const db = await createTestDatabase();
    const env = { ...mysqlVariables(db.settings), SHUTDOWN_GRACE_MS: String(GRACE_MS) };
    const [first, twin] = await Promise.all([
      startService('platform', env),
      startService('platform', env),
    ]);
    running.push(first, twin);
    const pool = await createMysqlPool(db.settings);
    const [versions] = await pool.query<RowDataPacket[]>('SELECT version FROM schema_migrations');
    const migrated = logEntries(first.output() + twin.output()).filter(
      (e) => e.msg === 'migration applied',
    );
    expect(migrated.length).toBe(versions.length);
    expect(versions.length).toBeGreaterThanOrEqual(3);

    let second: ServiceProcess | undefined;
    const outcomes = await loadWhile(
      first,
      { workers: 8, maxMs: 4000, next: () => ({ path: '/api/merchant/list' }) },
      async () => {
        await sleep(500);
        second = await startService('platform', env);
        running.push(second);
      },
    );
    expect(outcomes.length).toBeGreaterThan(20);
    for (const outcome of outcomes)
      expect(outcome).toMatchObject({ kind: 'answered', status: 200, body: { code: 200 } });
    const merchant = await fetch(`${second?.url}/api/merchant/list`).then((res) => res.json());
    expect(merchant).toEqual({ code: 200, message: '获取成功', data: [] });
    await pool.end();
    await db.drop();
  });
});
