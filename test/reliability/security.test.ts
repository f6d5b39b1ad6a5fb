import {
  createTestDatabase,
  createTestRedis,
  mysqlVariables,
  startRedisServer,
} from '@svc/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from './support/service-process.js';

let running: ServiceProcess[] = [];
afterEach(async () => {
  await Promise.all(running.map((service) => service.stop()));
  running = [];
});

async function json(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', ...init.headers },
    body:
      init.body === undefined
        ? undefined
        : typeof init.body === 'string'
          ? init.body
          : JSON.stringify(init.body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { code: number; data?: { token?: string } },
  };
}

describe('secrets never reach the logs', () => {
  for (const scheme of ['random', 'md5'] as const) {
    it(`${scheme}: no token, password or Authorization value in anything the service writes`, async () => {
      const redis = await startRedisServer();
      const db = await createTestDatabase();
      const auth = await startService('auth', {
        ...mysqlVariables(db.settings),
        REDIS_URL: redis.url,
        TOKEN_SCHEME: scheme,
        LOG_LEVEL: 'trace',
      });
      running.push(auth);
      const password = `Secret-Pass-${scheme}-0001`;
      const newPassword = `Secret-New-${scheme}-0002`;
      const secrets = [password, newPassword];
      const base = `${auth.url}/api/user`;

      await json(`${base}/register`, { body: { username: 'leaky', password } });
      await json(`${base}/register`, { body: { username: 'leaky', password } });
      await json(`${base}/login`, { body: { username: 'leaky', password: `${password}-wrong` } });
      secrets.push(`${password}-wrong`);
      await json(`${base}/login`, { body: `{"username":"leaky","password":"${password}"` });
      const login = await json(`${base}/login`, { body: { username: 'leaky', password } });
      const token = login.body.data?.token as string;
      expect(token).toMatch(/^[0-9a-f]+$/);
      secrets.push(token);
      await json(`${base}/me`, { headers: { authorization: `Bearer ${token}` } });
      await json(`${base}/status`, { headers: { token } });
      await json(`${base}/me`, { headers: { authorization: 'Bearer not-a-real-token-value-123' } });
      secrets.push('not-a-real-token-value-123');
      await json(`${base}/change-password`, {
        headers: { token },
        body: { oldPassword: `${password}-nope`, newPassword },
      });
      secrets.push(`${password}-nope`);
      // Errors logged while Redis is down must not carry the token either.
      await redis.stop();
      await json(`${base}/me`, { headers: { authorization: `Bearer ${token}` } });
      await json(`${base}/login`, { body: { username: 'leaky', password } });
      await redis.start();
      await expect
        .poll(async () => (await json(`${base}/status`, { headers: { token } })).status)
        .toBe(200);
      const relogin = await json(`${base}/login`, { body: { username: 'leaky', password } });
      const token2 = relogin.body.data?.token as string;
      secrets.push(token2);
      await json(`${base}/change-password`, {
        headers: { authorization: `Bearer ${token2}` },
        body: { oldPassword: password, newPassword },
      });
      await json(`${base}/logout`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token2}` },
      });

      const output = auth.output();
      expect(output).toContain('request completed');
      expect(output).toContain('[redacted]');
      for (const secret of secrets)
        expect(output, `a secret reached the log`).not.toContain(secret);
      await redis.destroy();
      await db.drop();
    });
  }
});

describe('the failed-login limiter under parallel attempts', () => {
  /** A real auth process on stores of its own; `base` is its /api/user. */
  async function authUsers() {
    const db = await createTestDatabase();
    const redis = await createTestRedis();
    const auth = await startService('auth', {
      ...mysqlVariables(db.settings),
      REDIS_URL: redis.url,
      LOG_LEVEL: 'warn',
    });
    running.push(auth);
    return { db, base: `${auth.url}/api/user` };
  }

  it('lets exactly the limit through, locks the pair even for the right password, spares other users', async () => {
    const { db, base } = await authUsers();
    await json(`${base}/register`, { body: { username: 'target', password: 'copper-lamp-95' } });
    await json(`${base}/register`, {
      body: { username: 'bystander', password: 'near-amber-lamp-8' },
    });

    const attempts = await Promise.all(
      Array.from({ length: 40 }, () =>
        json(`${base}/login`, { body: { username: 'target', password: 'wrong-guess' } }),
      ),
    );
    const statuses = attempts.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    expect(
      (await json(`${base}/login`, { body: { username: 'target', password: 'copper-lamp-95' } }))
        .body,
    ).toEqual({
      code: 429,
      message: '登录失败次数过多,请稍后再试',
    });
    const started = Date.now();
    const other = await json(`${base}/login`, {
      body: { username: 'bystander', password: 'near-amber-lamp-8' },
    });
    expect(other.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    await db.drop();
  });

  it('refuses no right password before the limit of failures is recorded: 30 parallel logins all succeed', async () => {
    const { db, base } = await authUsers();
    await json(`${base}/register`, {
      body: { username: 'rightful', password: 'quiet-harbor-27' },
    });

    const logins = await Promise.all(
      Array.from({ length: 30 }, () =>
        json(`${base}/login`, { body: { username: 'rightful', password: 'quiet-harbor-27' } }),
      ),
    );
    expect(logins.map((login) => login.status)).toEqual(Array(30).fill(200));
    await db.drop();
  });
});

/** Mann-Whitney U, normal approximation: |z| for "the two samples come from one distribution". */
function mannWhitneyZ(a: number[], b: number[]): number {
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort(
    (x, y) => x.v - y.v,
  );
  let rankA = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j < all.length && all[j]?.v === all[i]?.v) j++;
    const rank = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (all[k]?.g === 0) rankA += rank;
    i = j;
  }
  const u = rankA - (a.length * (a.length + 1)) / 2;
  const mean = (a.length * b.length) / 2;
  const sd = Math.sqrt((a.length * b.length * (a.length + b.length + 1)) / 12);
  return Math.abs((u - mean) / sd);
}

describe('login timing', () => {
  it('does not tell an unknown username from a wrong password', async () => {
    const db = await createTestDatabase();
    const redis = await createTestRedis();
    const auth = await startService('auth', {
      ...mysqlVariables(db.settings),
      REDIS_URL: redis.url,
      LOG_LEVEL: 'warn',
      // Every login here fails: neither the pair nor the username's budget may lock.
      LOGIN_MAX_FAILURES: '10000',
      ACCOUNT_MAX_FAILURES: '10000',
    });
    running.push(auth);
    const base = `${auth.url}/api/user`;
    await json(`${base}/register`, { body: { username: 'known', password: 'silver-fern-4' } });
    const time = async (username: string) => {
      const started = process.hrtime.bigint();
      const res = await json(`${base}/login`, { body: { username, password: 'not-the-password' } });
      expect(res.body).toEqual({ code: 401, message: '用户名或密码错误' });
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    for (let i = 0; i < 5; i++) await Promise.all([time('known'), time(`ghost${i}`)]);
    const wrong: number[] = [];
    const unknown: number[] = [];
    // Interleaved in pairs, so drift on a shared machine falls on both alike; each
    // order half of the time, shuffled, so nothing periodic in the server (its
    // thread pool takes turns) can line up with one kind of login.
    const unknownFirst = Array.from({ length: 60 }, (_, i) => i % 2 === 0);
    for (let i = unknownFirst.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [unknownFirst[i], unknownFirst[j]] = [unknownFirst[j] as boolean, unknownFirst[i] as boolean];
    }
    for (const [i, first] of unknownFirst.entries()) {
      if (first) {
        unknown.push(await time(`ghost-${i}`));
        wrong.push(await time('known'));
      } else {
        wrong.push(await time('known'));
        unknown.push(await time(`ghost-${i}`));
      }
    }
    const z = mannWhitneyZ(wrong, unknown);
    const median = (xs: number[]) =>
      [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
    process.stdout.write(
      `login timing: wrong password median ${median(wrong).toFixed(1)} ms, unknown user ${median(unknown).toFixed(1)} ms, |z| ${z.toFixed(2)}\n`,
    );
    // |z| < 3.29 is p > 0.001 (two-sided): no detectable difference.
    expect(z).toBeLessThan(3.29);
    await db.drop();
  });
});

describe('cross-origin requests with credentials', () => {
  it('are never granted credentials by either service', async () => {
    const db = await createTestDatabase();
    const redis = await createTestRedis();
    const platform = await startService('platform', {
      ...mysqlVariables(db.settings),
      LOG_LEVEL: 'warn',
    });
    const auth = await startService('auth', {
      ...mysqlVariables(db.settings),
      REDIS_URL: redis.url,
      LOG_LEVEL: 'warn',
    });
    running.push(platform, auth);
    for (const url of [`${platform.url}/api/merchant/add`, `${auth.url}/api/user/login`]) {
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, authorization',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
      const actual = await fetch(url.replace(/\/[a-z]+$/, '/list'), {
        headers: { origin: 'https://evil.example', cookie: 'sid=1' },
      });
      expect(actual.headers.get('access-control-allow-origin')).toBe('*');
      expect(actual.headers.get('access-control-allow-credentials')).toBeNull();
    }
    await db.drop();
  });
});
