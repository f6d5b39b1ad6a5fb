import { createTestDatabase, createTestRedis, mysqlVariables } from '@svc/test-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { HEAP_PROBE, liveMemoryMb, median, rssMb, slopePerMinute } from './support/memory.js';
import { type ServiceProcess, startService } from './support/service-process.js';

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const SAMPLE_EVERY_MS = 5000;

type Call = { method?: string; path: string; body?: unknown; token?: string; expect: number[] };

async function call(base: string, c: Call): Promise<number> {
  const res = await fetch(base + c.path, {
    method: c.method ?? 'GET',
    headers: {
      'content-type': 'application/json',
      ...(c.token ? { authorization: `Bearer ${c.token}` } : {}),
    },
    body: c.body === undefined ? undefined : JSON.stringify(c.body),
  });
  const body = (await res.json()) as { code: number };
  return body.code;
}

describe('soak', () => {
  const services: ServiceProcess[] = [];
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
  });

  it(`holds memory flat under ${SOAK_SECONDS} s of mixed load on both services`, async () => {
    const [authDb, platformDb, redis] = await Promise.all([
      createTestDatabase(),
      createTestDatabase(),
      createTestRedis(),
    ]);
    const auth = await startService('auth', {
      ...mysqlVariables(authDb.settings),
      REDIS_URL: redis.url,
      LOG_LEVEL: 'warn',
      NODE_OPTIONS: HEAP_PROBE,
    });
    const platform = await startService('platform', {
      ...mysqlVariables(platformDb.settings),
      LOG_LEVEL: 'warn',
      NODE_OPTIONS: HEAP_PROBE,
    });
    services.push(auth, platform);

    const users = Array.from({ length: 20 }, (_, i) => ({
      username: `soak${i}`,
      password: `soak-password-${i}`,
    }));
    for (const user of users) {
      expect(
        await call(auth.url, {
          method: 'POST',
          path: '/api/user/register',
          body: user,
          expect: [200],
        }),
      ).toBe(200);
    }
    await call(platform.url, {
      method: 'POST',
      path: '/api/merchant/add',
      body: { name: 'm', address: 'a', phone: '13800000000' },
      expect: [200],
    });
    await call(platform.url, {
      method: 'POST',
      path: '/api/service/add',
      body: { merchant_id: 1, name: 's', price: '9.90', category: '保洁' },
      expect: [200],
    });

    const tokens: string[] = [];
    const login = async (i: number) => {
      const user = users[i % users.length];
      const res = await fetch(`${auth.url}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(user),
      });
      const body = (await res.json()) as { code: number; data?: { token: string } };
      if (body.data) tokens.push(body.data.token);
      return body.code;
    };
    await login(0);

    const mix = (i: number): [string, Call] => {
      const token = tokens[tokens.length - 1] as string;
      switch (i % 10) {
        case 0:
          return [
            auth.url,
            {
              method: 'POST',
              path: '/api/user/login',
              body: { username: 'soak-nobody', password: 'wrong-password' },
              // The limiter locks this pair after its fifth failure, on purpose.
              expect: [401, 429],
            },
          ];
        case 1:
          return [auth.url, { path: '/api/user/me', token: 'f'.repeat(64), expect: [401] }];
        case 2:
          return [auth.url, { path: '/api/user/status', token, expect: [200] }];
        case 3:
          return [auth.url, { path: '/api/user/me', token, expect: [200] }];
        case 4:
          return [
            platform.url,
            { path: '/api/order/list?status=0&page=1&pageSize=20', expect: [200] },
          ];
        case 5:
          return [
            platform.url,
            {
              method: 'POST',
              path: '/api/order/create',
              body: { service_id: 1, user_name: `c${i}`, user_phone: '13912345678' },
              expect: [200],
            },
          ];
        case 6:
          return [
            platform.url,
            { path: '/api/service/list?category=%E4%BF%9D%E6%B4%81', expect: [200] },
          ];
        case 7:
          return [
            platform.url,
            { method: 'POST', path: '/api/merchant/add', body: { name: '' }, expect: [400] },
          ];
        case 8:
          return [platform.url, { path: '/api/merchant/list', expect: [200] }];
        default:
          return [platform.url, { method: 'PUT', path: '/api/service/publish/1', expect: [200] }];
      }
    };

    type Sample = { atMs: number; live: number; rss: number };
    const samples: Record<'auth' | 'platform', Sample[]> = { auth: [], platform: [] };
    const unexpected: string[] = [];
    const started = Date.now();
    const deadline = started + SOAK_SECONDS * 1000;
    let sent = 0;
    const worker = async () => {
      while (Date.now() < deadline) {
        const i = sent++;
        if (i % 500 === 0) await login(i);
        const [base, c] = mix(i);
        const code = await call(base, c).catch((err: Error) => -1 * err.message.length);
        if (!c.expect.includes(code)) unexpected.push(`${c.method ?? 'GET'} ${c.path}: ${code}`);
      }
    };
    const sample = async (service: ServiceProcess): Promise<Sample> => ({
      atMs: Date.now() - started,
      live: await liveMemoryMb(service),
      rss: await rssMb(service.pid),
    });
    // One sample at a time, and the last one awaited: a sample still reading
    // /proc once the test ends would find the process gone.
    let sampling: Promise<void> = Promise.resolve();
    const samplingFailures: unknown[] = [];
    const sampler = setInterval(() => {
      sampling = sampling
        .then(async () => {
          samples.auth.push(await sample(auth));
          samples.platform.push(await sample(platform));
        })
        .catch((err: unknown) => {
          samplingFailures.push(err);
        });
    }, SAMPLE_EVERY_MS);
    await Promise.all(Array.from({ length: 8 }, worker));
    clearInterval(sampler);
    await sampling;
    expect(samplingFailures).toEqual([]);

    const mb = (values: number[]) => values.map((v) => v.toFixed(1)).join(' ');
    for (const [name, series] of Object.entries(samples)) {
      process.stdout.write(
        `soak ${name} every ${SAMPLE_EVERY_MS / 1000} s, live MB: ${mb(series.map((s) => s.live))}\n` +
          `soak ${name} every ${SAMPLE_EVERY_MS / 1000} s, rss MB: ${mb(series.map((s) => s.rss))}\n`,
      );
    }
    process.stdout.write(
      `soak: ${sent} requests in ${SOAK_SECONDS} s, ${unexpected.length} unexpected answers\n`,
    );
    expect(unexpected.slice(0, 10)).toEqual([]);
    expect(sent).toBeGreaterThan(SOAK_SECONDS * 50);
    for (const [name, series] of Object.entries(samples)) {
      // Live memory (heap and external after a full GC) is what a leak grows; RSS,
      // which V8 and malloc keep reserved in steps, is only reported. The first
      // third is warm-up (JIT, pools filling); the last third's median must stay
      // within 10% of the middle one's (about 4 MB a minute). The slope is reported,
      // not judged: live memory may step up once by a megabyte or two (seen on the
      // platform two minutes in, flat after), which a slope over two minutes cannot
      // tell from a slow leak.
      const live = series.map((s) => ({ atMs: s.atMs, mb: s.live }));
      const third = Math.floor(live.length / 3);
      const middle = median(live.slice(third, 2 * third).map((s) => s.mb));
      const last = median(live.slice(2 * third).map((s) => s.mb));
      const slope = slopePerMinute(live.slice(third));
      process.stdout.write(
        `soak ${name}: live memory median ${middle.toFixed(1)} MB in the middle third, ${last.toFixed(1)} MB in the last; slope ${slope.toFixed(2)} MB/min after warm-up\n`,
      );
      expect(last, `${name} live MB: ${mb(live.map((s) => s.mb))}`).toBeLessThanOrEqual(
        middle * 1.1,
      );
    }
    await Promise.all([authDb.drop(), platformDb.drop()]);
  });
});
