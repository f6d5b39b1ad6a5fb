import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { accountFailuresKey, loginFailuresKey } from '../src/users/login-limiter.js';
import { suiteApp, suiteStores } from './support/suite-setup.js';
import {
  bearer,
  buildApp,
  login,
  registerUser,
  sleep,
  TOO_MANY,
  uniqueName,
  WRONG_CREDENTIALS,
} from './support/test-app.js';

const stores = suiteStores();

type App = ReturnType<typeof buildApp>['app'];
/** The limiter's key for a username from supertest's loopback address. */
const failuresKeyOf = (username: string) => loginFailuresKey(username, '127.0.0.1');
const attempt = (app: App, username: string, password: string, from?: string) => {
  const req = request(app).post('/api/user/login');
  if (from) req.set('X-Forwarded-For', from);
  return req.send({ username, password });
};

describe('failed-login limiter with the contract defaults (5 in 15 minutes, 15 minutes lock)', () => {
  const app = suiteApp(stores);

  it('locks the pair after 5 failures: 429 with Retry-After even for the right password', async () => {
    const { username, password } = await registerUser(app());
    for (let i = 0; i < 5; i++) {
      const res = await attempt(app(), username, 'wrong-password');
      expect(res.status, `attempt ${i + 1}`).toBe(401);
      expect(res.body).toEqual(WRONG_CREDENTIALS);
    }
    const locked = await attempt(app(), username, password);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual(TOO_MANY);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(895);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(900);
    // Another spelling of the same name is the same pair.
    expect((await attempt(app(), username.toUpperCase(), password)).status).toBe(429);
  });

  it('counts unknown usernames too', async () => {
    const ghost = uniqueName('ghost');
    for (let i = 0; i < 5; i++) expect((await attempt(app(), ghost, 'x')).status).toBe(401);
    const res = await attempt(app(), ghost, 'x');
    expect(res.status).toBe(429);
    expect(res.body).toEqual(TOO_MANY);
  });

  it('counts a name holding a lone surrogate like any unknown name, not as a store outage', async () => {
    // JSON text may escape half of a surrogate pair: a string, but not valid Unicode.
    const raw = `{"username":"${uniqueName('ghost')}\\ud800","password":"x"}`;
    const send = () =>
      request(app()).post('/api/user/login').set('Content-Type', 'application/json').send(raw);
    for (let i = 0; i < 5; i++) {
      const res = await send();
      expect(res.status, `attempt ${i + 1}`).toBe(401);
      expect(res.body).toEqual(WRONG_CREDENTIALS);
    }
    const res = await send();
    expect(res.status).toBe(429);
    expect(res.body).toEqual(TOO_MANY);
  });

  it('starts over after a success', async () => {
    const { username, password } = await registerUser(app());
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 4; i++) expect((await attempt(app(), username, 'nope')).status).toBe(401);
      expect((await attempt(app(), username, password)).status).toBe(200);
    }
    expect(await stores.redis.exists(failuresKeyOf(username))).toBe(0);
    // The account's budget across addresses is not a pair's run: a success does not refill it.
    expect(await stores.redis.hget(accountFailuresKey(username), 'failures')).toBe('8');
  });

  it('never slows the correct logins of other users while one pair is locked', async () => {
    const victim = await registerUser(app());
    const others = await Promise.all([
      registerUser(app()),
      registerUser(app()),
      registerUser(app()),
    ]);
    await Promise.all(Array.from({ length: 8 }, () => attempt(app(), victim.username, 'guess')));
    expect((await attempt(app(), victim.username, victim.password)).status).toBe(429);

    for (const other of others) {
      const started = performance.now();
      const res = await attempt(app(), other.username, other.password);
      expect(res.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it('lets no more than the limit through when attempts arrive in parallel', async () => {
    const { username } = await registerUser(app());
    const results = await Promise.all(
      Array.from({ length: 12 }, () => attempt(app(), username, 'parallel-guess')),
    );
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(7).fill(429)]);
  });

  it('refuses no right password before 5 failures are recorded, however many arrive at once', async () => {
    const { username, password } = await registerUser(app());
    const results = await Promise.all(
      Array.from({ length: 30 }, () => attempt(app(), username, password)),
    );
    expect(results.map((res) => res.status)).toEqual(Array(30).fill(200));
  });

  it('lets a right password through beside wrong ones in flight, until 5 failures are recorded', async () => {
    const { username, password } = await registerUser(app());
    for (let i = 0; i < 4; i++) expect((await attempt(app(), username, 'nope')).status).toBe(401);
    const [wrong, right] = await Promise.all([
      attempt(app(), username, 'nope'),
      attempt(app(), username, password),
    ]);
    expect(wrong.status).toBe(401);
    // The right one ran either before the fifth failure (200) or after it (429): never refused early.
    const failures = Number(await stores.redis.hget(failuresKeyOf(username), 'failures'));
    expect(right.status).toBe(failures >= 5 ? 429 : 200);
  });

  it('frees the slot of a check whose process died, once its time has passed', async () => {
    const { username, password } = await registerUser(app());
    const key = failuresKeyOf(username);
    const past = Date.now() - 1;
    for (let i = 0; i < 5; i++) await stores.redis.hset(key, `p:dead-${i}`, past);
    expect((await attempt(app(), username, password)).status).toBe(200);
    expect(await stores.redis.hkeys(key)).toEqual([]);
  });

  it('reads a failure count left by the previous limiter (a plain counter) as failures', async () => {
    const { username, password } = await registerUser(app());
    const key = failuresKeyOf(username);
    await stores.redis.set(key, '5', 'EX', 600);
    const res = await attempt(app(), username, password);
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(590);
    expect(await stores.redis.hget(key, 'failures')).toBe('5');
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY says so', async () => {
    const { username, password } = await registerUser(app());
    for (let i = 0; i < 5; i++) await attempt(app(), username, 'bad', `198.51.100.${i}`);
    expect((await attempt(app(), username, password, '198.51.100.99')).status).toBe(429);
  });

  it('counts wrong old passwords on change-password against the same pair', async () => {
    const { username, password } = await registerUser(app());
    const token = await login(app(), username, password);
    const change = (oldPassword: string) =>
      request(app())
        .post('/api/user/change-password')
        .set(bearer(token))
        .send({ oldPassword, newPassword: 'new-password-1' });
    for (let i = 0; i < 5; i++) {
      const res = await change('not-it');
      expect(res.body).toEqual({ code: 400, message: '原密码错误' });
    }
    const locked = await change(password);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual(TOO_MANY);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await attempt(app(), username, password)).status).toBe(429);
    // The session itself is untouched.
    expect((await request(app()).get('/api/user/me').set(bearer(token))).status).toBe(200);
  });
});

describe.concurrent('failed-login limiter with configured limits', () => {
  it('keys on the client address named by X-Forwarded-For from a trusted proxy', async () => {
    const { app } = buildApp(stores, { trustProxy: ['loopback'], loginMaxFailures: 2 });
    const { username, password } = await registerUser(app);
    for (let i = 0; i < 2; i++) await attempt(app, username, 'bad', '203.0.113.5');
    expect((await attempt(app, username, password, '203.0.113.5')).status).toBe(429);
    expect((await attempt(app, username, password, '203.0.113.6')).status).toBe(200);
    expect(
      await stores.redis.exists(`auth:login-failures:{${username.toLowerCase()}}:203.0.113.5`),
    ).toBe(1);
  });

  it('keeps the lock LOGIN_LOCK_SECONDS after the limit is reached, though the window is shorter', async () => {
    const { app } = buildApp(stores, {
      loginMaxFailures: 2,
      loginWindowSeconds: 1,
      loginLockSeconds: 3,
    });
    const { username, password } = await registerUser(app);
    await attempt(app, username, 'bad');
    await attempt(app, username, 'bad');
    await sleep(1500);
    const locked = await attempt(app, username, password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(2);
    await sleep(1800);
    expect((await attempt(app, username, password)).status).toBe(200);
  });

  it('forgets failures older than LOGIN_WINDOW_SECONDS', async () => {
    const { app } = buildApp(stores, {
      loginMaxFailures: 2,
      loginWindowSeconds: 1,
      loginLockSeconds: 60,
    });
    const { username, password } = await registerUser(app);
    expect((await attempt(app, username, 'bad')).status).toBe(401);
    await sleep(1200);
    expect((await attempt(app, username, 'bad')).status).toBe(401);
    expect((await attempt(app, username, password)).status).toBe(200);
  });
});
