import {
  createTestDatabase,
  mysqlVariables,
  startMariaDbServer,
  startRedisServer,
  type TestServer,
} from '@svc/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from './support/service-process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Sample {
  atMs: number;
  ms: number;
  status: number;
  body: { code?: number; message?: string; msg?: string; error?: string };
}

/** Streams requests from `workers` loops until `stop` says so; every answer is kept. */
async function stream(
  fire: () => Promise<Response>,
  workers: number,
  until: Promise<void>,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const t0 = Date.now();
  let done = false;
  until.then(() => {
    done = true;
  });
  const loop = async () => {
    while (!done) {
      const started = Date.now();
      const res = await fire();
      samples.push({
        atMs: started - t0,
        ms: Date.now() - started,
        status: res.status,
        body: (await res.json()) as Sample['body'],
      });
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
  return samples;
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function own<T extends TestServer | ServiceProcess>(thing: T): Promise<T> {
  cleanup.push(() => ('destroy' in thing ? thing.destroy() : thing.stop()));
  return thing;
}

describe('auth while Redis goes away and comes back', () => {
  it('answers 503 (never 401) while Redis is down and serves again within seconds, without a restart', async () => {
    const redis = await own(await startRedisServer({ persistent: true }));
    const db = await createTestDatabase();
    const auth = await own(
      await startService('auth', { ...mysqlVariables(db.settings), REDIS_URL: redis.url }),
    );
    const credentials = { username: 'fault-user', password: 'fault-password-1' };
    const post = (path: string) =>
      fetch(auth.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(credentials),
      });
    await post('/api/user/register');
    const { data } = (await (await post('/api/user/login')).json()) as { data: { token: string } };

    let outageStart = 0;
    let outageEnd = 0;
    const script = (async () => {
      await sleep(1000);
      outageStart = Date.now();
      await redis.stop();
      await sleep(2000);
      await redis.start();
      outageEnd = Date.now();
      await sleep(4000);
    })();
    const t0 = Date.now();
    const samples = await stream(
      () =>
        fetch(`${auth.url}/api/user/me`, { headers: { authorization: `Bearer ${data.token}` } }),
      8,
      script,
    );

    expect(samples.filter((s) => s.status === 401)).toEqual([]);
    for (const s of samples) {
      if (s.status === 200)
        expect(s.body).toEqual({
          code: 200,
          message: expect.any(String),
          data: { username: 'fault-user', totp: false },
        });
      else
        expect(s).toMatchObject({
          status: 503,
          body: { code: 503, message: '服务暂不可用,请稍后重试' },
        });
    }
    const during = samples.filter(
      (s) => s.atMs > outageStart - t0 + 100 && s.atMs < outageEnd - t0 - 100,
    );
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((s) => s.status === 503)).toBe(true);
    expect(Math.max(...during.map((s) => s.ms))).toBeLessThan(2500);
    const recovered = samples.filter((s) => s.atMs > outageEnd - t0 + 3000);
    expect(recovered.length).toBeGreaterThan(10);
    expect(recovered.every((s) => s.status === 200)).toBe(true);
    // Login needs Redis too: it answered 503 above while down; now it works again.
    expect((await post('/api/user/login')).status).toBe(200);
    await db.drop();
  });
});

describe('platform while MySQL goes away, hangs, and is exhausted', () => {
  it('answers the spec 500 bodies while MySQL is stopped and serves again once it is back', async () => {
    const mysql = await own(await startMariaDbServer());
    const db = await createTestDatabase(mysql.url);
    const platform = await own(await startService('platform', mysqlVariables(db.settings)));

    let outageStart = 0;
    let outageEnd = 0;
    const script = (async () => {
      await sleep(1000);
      outageStart = Date.now();
      await mysql.stop();
      await sleep(2000);
      await mysql.start();
      outageEnd = Date.now();
      await sleep(5000);
    })();
    const t0 = Date.now();
    const samples = await stream(() => fetch(`${platform.url}/api/merchant/list`), 8, script);

    for (const s of samples) {
      expect(s.status).toBe(200);
      if (s.body.code === 200) expect(s.body).toEqual({ code: 200, message: '获取成功', data: [] });
      else
        expect(s.body).toEqual({ code: 500, message: '获取失败', error: 'storage is unavailable' });
    }
    const during = samples.filter(
      (s) => s.atMs > outageStart - t0 + 200 && s.atMs < outageEnd - t0 - 200,
    );
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((s) => s.body.code === 500)).toBe(true);
    expect(Math.max(...during.map((s) => s.ms))).toBeLessThan(5000);
    const recovered = samples.filter((s) => s.atMs > outageEnd - t0 + 3000);
    expect(recovered.length).toBeGreaterThan(10);
    expect(recovered.every((s) => s.body.code === 200)).toBe(true);
  });

  // Kept lists read one stamp for every list asked meanwhile: the 40 wait on that one read,
  // holding one connection, and fail together when it does. Keeping nothing, each list takes
  // a connection, and those past the pool and its queue fail at once.
  it.each<{ kept: string; env: Record<string, string>; atOnce: number }>([
    { kept: 'nothing kept', env: { LIST_CACHE_MB: '0' }, atOnce: 40 - 4 - 8 },
    { kept: 'kept lists', env: {}, atOnce: 0 },
  ])(
    'bounds every request while MySQL hangs, even with far more requests than connections ($kept)',
    async ({ env, atOnce }) => {
      const mysql = await own(await startMariaDbServer());
      const db = await createTestDatabase(mysql.url);
      const platform = await own(
        await startService('platform', {
          ...mysqlVariables(db.settings),
          MYSQL_POOL_SIZE: '4',
          MYSQL_QUEUE_LIMIT: '8',
          MYSQL_QUERY_TIMEOUT_MS: '1500',
          ...env,
        }),
      );
      expect((await fetch(`${platform.url}/api/merchant/list`)).status).toBe(200);
      mysql.pause();
      cleanup.push(async () => mysql.resume());
      const started = Date.now();
      // Pages: a short route, bounded by the pool and its queue alone (whole lists
      // also wait for a LIST_CONCURRENCY slot; see slow-clients.test.ts).
      const answers = await Promise.all(
        Array.from({ length: 40 }, async () => {
          const res = await fetch(`${platform.url}/api/merchant/list?page=1`);
          return { ms: Date.now() - started, body: (await res.json()) as Sample['body'] };
        }),
      );
      for (const answer of answers) {
        expect(answer.body).toEqual({
          code: 500,
          message: '获取失败',
          error: 'storage is unavailable',
        });
      }
      // Past the pool and its queue, requests fail at once instead of waiting in line.
      expect(answers.filter((a) => a.ms < 500).length).toBeGreaterThanOrEqual(atOnce);
      // The query timeout, the kill's wait, and the connect timeout at most: never a hang.
      expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(atOnce > 0 ? 10_000 : 5_000);
      mysql.resume();
      await expect
        .poll(
          async () =>
            ((await (await fetch(`${platform.url}/api/merchant/list`)).json()) as Sample['body'])
              .code,
          {
            timeout: 15_000,
          },
        )
        .toBe(200);
    },
  );
});
