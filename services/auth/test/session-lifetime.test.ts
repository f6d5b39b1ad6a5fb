import type { TokenScheme } from '@svc/session-guard';
import type { Express } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { AuthSettings } from '../src/config.js';
import { instant, layoutOf, lifetimes, listSessions, loginAs } from './support/sessions.js';
import { suiteStores } from './support/suite-setup.js';
import {
  bearer,
  buildApp,
  DEVICE_TOKEN,
  INVALID_TOKEN,
  registerUser,
  SCHEMES,
  sleep,
} from './support/test-app.js';

const stores = suiteStores();

const appWith = (scheme: TokenScheme, settings: Partial<AuthSettings> = {}) =>
  buildApp(stores, { tokenScheme: scheme, ...settings }).app;

const me = (app: Express, token: string) => request(app).get('/api/user/me').set(bearer(token));

describe.each(SCHEMES)('lastSeenAt (TOKEN_SCHEME=%s)', (scheme) => {
  const keys = layoutOf(scheme);

  /** Three uses through each app: each app is a guard of its own, as another process's would be. */
  const useEverywhere = async (apps: Express[], token: string) => {
    for (let i = 0; i < 3; i++) {
      for (const app of apps) expect((await me(app, token)).status).toBe(200);
    }
  };

  it('is not written by guarded reads within SESSION_TOUCH_SECONDS of the last write', async () => {
    const apps = [appWith(scheme), appWith(scheme)];
    const { token } = await loginAs(apps[0] as Express, await registerUser(apps[0] as Express));
    const [atLogin, createdAt] = await stores.redis.hmget(
      keys.metadata(token),
      'lastSeenAt',
      'createdAt',
    );
    expect(atLogin).toBe(createdAt);
    await useEverywhere(apps, token);
    expect(await stores.redis.hget(keys.metadata(token), 'lastSeenAt')).toBe(atLogin);
  });

  it('is written once the interval has passed, and at most once per interval wherever the session is used', async () => {
    const apps = [appWith(scheme, { touchSeconds: 1 }), appWith(scheme, { touchSeconds: 1 })];
    const [first, second] = apps as [Express, Express];
    const { token } = await loginAs(first, await registerUser(first));
    const lastSeenAt = async () =>
      Number(await stores.redis.hget(keys.metadata(token), 'lastSeenAt'));
    await sleep(1100);
    const before = Date.now();
    expect((await me(second, token)).status).toBe(200);
    const written = await lastSeenAt();
    expect(written).toBeGreaterThanOrEqual(before);
    await useEverywhere(apps, token);
    // Unchanged, or (on a slow machine) written again a whole interval later.
    const after = await lastSeenAt();
    if (after !== written) expect(after - written).toBeGreaterThanOrEqual(1000);
    const [listed] = await listSessions(first, token);
    expect(instant(listed?.lastSeenAt as string)).toBe(await lastSeenAt());
  });

  it('follows use with a short SESSION_TOUCH_SECONDS, and never moves the end of a fixed session', async () => {
    const app = appWith(scheme, { touchSeconds: 1 });
    const { token } = await loginAs(app, await registerUser(app));
    const [atLogin] = await listSessions(app, token);
    await sleep(1100);
    const before = Date.now();
    expect((await me(app, token)).status).toBe(200);
    const [afterUse] = await listSessions(app, token);
    expect(instant(afterUse?.lastSeenAt as string)).toBeGreaterThanOrEqual(before);
    expect(afterUse?.createdAt).toBe(atLogin?.createdAt);
    // Not sliding: the end stays where the login put it (to the second the listing reads).
    const moved = instant(afterUse?.expiresAt as string) - instant(atLogin?.expiresAt as string);
    expect(Math.abs(moved)).toBeLessThan(1000);
    const [sessionLeft, metadataLeft] = await Promise.all([
      stores.redis.pttl(keys.session(token)),
      stores.redis.pttl(keys.metadata(token)),
    ]);
    expect(Math.abs(sessionLeft - metadataLeft)).toBeLessThan(50);
  });
});

describe.each(SCHEMES)('SESSION_MAX_AGE (TOKEN_SCHEME=%s)', (scheme) => {
  it('ends a sliding session at its max age however often it is used', async () => {
    const app = appWith(scheme, { tokenTtl: 2, sliding: true, maxAgeSeconds: 3 });
    const { token, before } = await loginAs(app, await registerUser(app));
    const [listed] = await listSessions(app, token);
    expect(instant(listed?.expiresAt as string)).toBeLessThanOrEqual(before + 3000);
    const answers: number[] = [];
    while (Date.now() < before + 4200) {
      answers.push((await me(app, token)).status);
      await sleep(400);
    }
    // Alive past TOKEN_TTL by its use, then ended by its age.
    expect(answers.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.at(-1)).toBe(401);
    expect((await me(app, token)).body).toEqual(INVALID_TOKEN);
    const keys = layoutOf(scheme);
    expect(await stores.redis.exists(keys.session(token), keys.metadata(token))).toBe(0);
  });

  it('caps a login’s lifetime when it is shorter than TOKEN_TTL, and says so in expiresIn', async () => {
    const app = appWith(scheme, { tokenTtl: 3600, maxAgeSeconds: 120 });
    const account = await registerUser(app);
    const res = await request(app).post('/api/user/login').send(account);
    expect(res.body).toEqual({
      code: 200,
      message: '登录成功',
      data: { token: expect.any(String), expiresIn: 120, deviceToken: DEVICE_TOKEN },
    });
    const keys = layoutOf(scheme);
    for (const key of [keys.session(res.body.data.token), keys.metadata(res.body.data.token)]) {
      expect(await stores.redis.ttl(key)).toBeGreaterThan(117);
      expect(await stores.redis.ttl(key)).toBeLessThanOrEqual(120);
    }
  });
});

describe.each(SCHEMES)('what sessions leave in Redis (TOKEN_SCHEME=%s)', (scheme) => {
  const keys = layoutOf(scheme);

  /**
   * Logins, uses, listings and every way to end a session, for one user, who is
   * left with a live session. (In md5 every login gives the one token again.)
   */
  async function workload(app: Express) {
    const account = await registerUser(app);
    const tokens: string[] = [];
    const login = async (agent: string) => {
      tokens.push((await loginAs(app, account, agent)).token);
      return tokens.at(-1) as string;
    };
    const [a, b] = [await login('a'), await login('b')];
    for (const token of [a, b]) expect((await me(app, token)).status).toBe(200);
    await request(app)
      .post('/api/user/login')
      .send({ ...account, password: 'wrong' });
    const other = (await listSessions(app, b)).find((s) => !s.current);
    if (other) await request(app).delete(`/api/user/sessions/${other.id}`).set(bearer(b));
    const c = await login('c');
    expect((await request(app).delete('/api/user/sessions').set(bearer(c))).status).toBe(200);
    expect((await request(app).post('/api/user/logout-all').set(bearer(c))).status).toBe(200);
    const d = await login('d');
    expect((await request(app).post('/api/user/logout').set(bearer(d))).status).toBe(200);
    const alive = await login('e');
    expect((await me(app, alive)).status).toBe(200);
    return { account, tokens, alive };
  }

  it.each([false, true])('gives every key an expiry (sliding %s)', async (sliding) => {
    const app = appWith(scheme, { sliding });
    const { alive } = await workload(app);
    await listSessions(app, alive);
    const left = await lifetimes(stores.redis);
    expect(left.size).toBeGreaterThan(0);
    for (const [key, ms] of left) expect(ms, key).toBeGreaterThan(0);
  });

  it.concurrent.each([false, true])(
    'leaves nothing of a user’s sessions once TOKEN_TTL has passed after the last one (sliding %s)',
    async (sliding) => {
      const app = appWith(scheme, { tokenTtl: 2, sliding });
      const { account, tokens } = await workload(app);
      const own = (key: string) =>
        tokens.some((token) => key === keys.session(token) || key === keys.metadata(token)) ||
        key === keys.index(account.username);
      expect([...(await lifetimes(stores.redis)).keys()].some(own)).toBe(true);
      await sleep(2300);
      expect([...(await lifetimes(stores.redis)).keys()].filter(own)).toEqual([]);
    },
  );
});

describe('sessions this service never saw begin', () => {
  it('lists and ends a session the old backend wrote in md5, keeping its key and value as they are', async () => {
    const app = appWith('md5');
    const account = await registerUser(app);
    const token = (await loginAs(app, account)).token;
    const keys = layoutOf('md5');
    // The old backend's login: the bare token, the username, an hour (TOKEN_TTL); nothing else.
    await stores.redis.del(keys.metadata(token));
    const wrote = Date.now();
    await stores.redis.set(token, account.username, 'EX', 3600);

    const before = Date.now();
    const used = await me(app, token).set('User-Agent', 'LegacyJudge/1.0');
    expect(used.status).toBe(200);
    expect(await stores.redis.get(token)).toBe(account.username);
    expect(await stores.redis.ttl(token)).toBeGreaterThan(3590);

    const [listed] = await listSessions(app, token);
    expect(listed).toEqual({
      id: expect.any(String),
      current: true,
      createdAt: expect.any(String),
      lastSeenAt: expect.any(String),
      expiresAt: expect.any(String),
      userAgent: 'LegacyJudge/1.0',
      ip: '127.0.0.1',
    });
    // Its login, read off the key's time left (an hour, less what has passed); its use, since.
    expect(instant(listed?.createdAt as string)).toBeGreaterThanOrEqual(wrote - 50);
    expect(instant(listed?.createdAt as string)).toBeLessThanOrEqual(before);
    expect(instant(listed?.lastSeenAt as string)).toBeGreaterThanOrEqual(before);
    expect(await stores.redis.pttl(keys.metadata(token))).toBeGreaterThan(3_590_000);

    const ended = await request(app).delete(`/api/user/sessions/${listed?.id}`).set(bearer(token));
    expect(ended.body).toEqual({ code: 200, message: '会话已结束' });
    expect(await stores.redis.exists(token, keys.metadata(token))).toBe(0);
  });

  it('lists and ends a random session written before sessions had metadata', async () => {
    const app = appWith('random');
    const account = await registerUser(app);
    const { token: current } = await loginAs(app, account);
    const { token: old } = await loginAs(app, account);
    const keys = layoutOf('random');
    await stores.redis.del(keys.metadata(old));

    const listed = await listSessions(app, current);
    expect(listed.find((s) => !s.current)).toMatchObject({ userAgent: null, ip: 'unknown' });
    const res = await request(app).delete('/api/user/sessions').set(bearer(current));
    expect(res.body).toEqual({ code: 200, message: '已退出其他会话', data: { ended: 1 } });
    expect(await stores.redis.exists(keys.session(old), keys.metadata(old))).toBe(0);
  });
});

describe('sessions mended (TOKEN_SCHEME=random)', () => {
  const keys = layoutOf('random');

  it('SESSION_MAX_PER_USER ends the session idle longest, to the second, not the one just used', async () => {
    // lastSeenAt is written once a minute: both keep the one their login wrote.
    const app = appWith('random', { maxPerUser: 2, touchSeconds: 60 });
    const account = await registerUser(app);
    const used = (await loginAs(app, account)).token;
    const idle = (await loginAs(app, account)).token;
    await sleep(1500);
    expect((await me(app, used)).status).toBe(200);
    await sleep(1500);
    // Listing the sessions is no use of them.
    expect(await listSessions(app, used)).toHaveLength(2);
    const fresh = (await loginAs(app, account)).token;
    const statuses = await Promise.all(
      [used, idle, fresh].map(async (t) => (await me(app, t)).status),
    );
    expect(statuses).toEqual([200, 401, 200]);
    expect(await listSessions(app, fresh)).toHaveLength(2);
  });

  it('lists a session whose stored details were lost with its original createdAt', async () => {
    const app = appWith('random');
    const account = await registerUser(app);
    const { token } = await loginAs(app, account);
    const [listed] = await listSessions(app, token);
    await sleep(1200);
    await stores.redis.del(keys.metadata(token));
    const [again] = await listSessions(app, token);
    // Read off the session key's time left: the login's moment, to within the write's latency.
    expect(
      Math.abs(instant(again?.createdAt as string) - instant(listed?.createdAt as string)),
    ).toBeLessThan(100);
    expect((await listSessions(app, token))[0]?.createdAt).toBe(again?.createdAt);
  });
});
