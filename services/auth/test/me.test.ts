import { createHash } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  buildApp,
  INVALID_TOKEN,
  login,
  NO_TOKEN,
  openStores,
  registerUser,
  SCHEMES,
  type Stores,
  sleep,
} from './support/test-app.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let stores: Stores;
beforeAll(async () => {
  stores = await openStores();
});
afterAll(() => stores.close());

describe.each(SCHEMES)('GET /api/user/me (TOKEN_SCHEME=%s)', (scheme) => {
  const sessionKey = (token: string) => (scheme === 'md5' ? token : `session:${sha256(token)}`);
  let app: ReturnType<typeof buildApp>['app'];
  beforeAll(() => {
    app = buildApp(stores, { tokenScheme: scheme, tokenTtl: 300 }).app;
  });

  it('answers the session owner for a live token in either header', async () => {
    const { username, password } = await registerUser(app);
    const token = await login(app, username, password);
    for (const headers of [bearer(token), { token }]) {
      const res = await request(app).get('/api/user/me').set(headers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ code: 200, message: '获取成功', data: { username } });
    }
  });

  it('answers 401 without a token and 401 for a token without a session', async () => {
    const none = await request(app).get('/api/user/me');
    expect(none.status).toBe(401);
    expect(none.body).toEqual(NO_TOKEN);
    const unknown = await request(app)
      .get('/api/user/me')
      .set(bearer('a'.repeat(scheme === 'md5' ? 32 : 64)));
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(INVALID_TOKEN);
  });

  it('does not extend the lifetime on use unless TOKEN_SLIDING is on', async () => {
    const { username, password } = await registerUser(app);
    const token = await login(app, username, password);
    await stores.redis.expire(sessionKey(token), 30);
    expect((await request(app).get('/api/user/me').set(bearer(token))).status).toBe(200);
    expect(await stores.redis.ttl(sessionKey(token))).toBeLessThanOrEqual(30);

    const { app: sliding } = buildApp(stores, {
      tokenScheme: scheme,
      tokenTtl: 300,
      sliding: true,
    });
    const index = `session:user:${username.toLowerCase()}`;
    if (scheme === 'random') await stores.redis.expire(index, 30);
    expect((await request(sliding).get('/api/user/me').set(bearer(token))).status).toBe(200);
    expect(await stores.redis.ttl(sessionKey(token))).toBeGreaterThan(297);
    if (scheme === 'random') expect(await stores.redis.ttl(index)).toBeGreaterThan(297);
  });
});

// These wait for lifetimes to pass; they run side by side to keep the suite quick.
describe('GET /api/user/me over time', () => {
  it.concurrent.each(SCHEMES)(
    'answers 401 once TOKEN_TTL has elapsed since login (TOKEN_SCHEME=%s)',
    async (scheme) => {
      const { app: shortLived } = buildApp(stores, { tokenScheme: scheme, tokenTtl: 1 });
      const { username, password } = await registerUser(shortLived);
      const token = await login(shortLived, username, password);
      expect((await request(shortLived).get('/api/user/me').set(bearer(token))).status).toBe(200);
      await sleep(2100);
      const res = await request(shortLived).get('/api/user/me').set(bearer(token));
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID_TOKEN);
    },
  );

  it.concurrent.each(SCHEMES)(
    'keeps a sliding session alive past TOKEN_TTL while it is used (TOKEN_SCHEME=%s)',
    async (scheme) => {
      const { app: sliding } = buildApp(stores, {
        tokenScheme: scheme,
        tokenTtl: 2,
        sliding: true,
      });
      const { username, password } = await registerUser(sliding);
      const token = await login(sliding, username, password);
      for (let i = 0; i < 3; i++) {
        await sleep(900);
        const res = await request(sliding).get('/api/user/me').set(bearer(token));
        expect(res.status, `use ${i}`).toBe(200);
      }
      await sleep(2300);
      expect((await request(sliding).get('/api/user/me').set(bearer(token))).body).toEqual(
        INVALID_TOKEN,
      );
    },
  );
});
