import { createHash } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  buildApp,
  login,
  openStores,
  registerUser,
  SCHEMES,
  type Stores,
  sleep,
} from './support/test-app.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const LOGGED_OUT = { code: 200, message: '获取成功', data: { loggedIn: false } };

let stores: Stores;
beforeAll(async () => {
  stores = await openStores();
});
afterAll(() => stores.close());

describe.each(SCHEMES)('GET /api/user/status (TOKEN_SCHEME=%s)', (scheme) => {
  let app: ReturnType<typeof buildApp>['app'];
  const sessionKey = (token: string) => (scheme === 'md5' ? token : `session:${sha256(token)}`);
  beforeAll(() => {
    app = buildApp(stores, { tokenScheme: scheme, tokenTtl: 600 }).app;
  });

  it('answers loggedIn false without a token', async () => {
    const res = await request(app).get('/api/user/status');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(LOGGED_OUT);
  });

  it('answers the owner and the seconds left for a live session, in either header', async () => {
    const { username, password } = await registerUser(app);
    const token = await login(app, username, password);
    for (const headers of [bearer(token), { token }]) {
      const res = await request(app).get('/api/user/status').set(headers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        code: 200,
        message: '获取成功',
        data: { loggedIn: true, username, expiresIn: expect.any(Number) },
      });
      expect(res.body.data.expiresIn).toBeGreaterThan(597);
      expect(res.body.data.expiresIn).toBeLessThanOrEqual(600);
    }

    await stores.redis.expire(sessionKey(token), 42);
    const later = await request(app).get('/api/user/status').set(bearer(token));
    expect(later.body.data).toEqual({ loggedIn: true, username, expiresIn: 42 });
    // Asking is not a use: the lifetime stays where it was.
    expect(await stores.redis.ttl(sessionKey(token))).toBeLessThanOrEqual(42);
  });

  it('answers loggedIn false for a token never issued, malformed or sent the wrong way', async () => {
    const { username, password } = await registerUser(app);
    const token = await login(app, username, password);
    const cases: Record<string, string>[] = [
      bearer('0'.repeat(scheme === 'md5' ? 32 : 64)),
      bearer('not-a-token'),
      { Authorization: `bearer ${token}` },
      { Authorization: `Bearer${token}` },
      { Authorization: `Basic ${token}` },
      { token: '' },
    ];
    for (const headers of cases) {
      const res = await request(app).get('/api/user/status').set(headers);
      expect(res.body, JSON.stringify(headers)).toEqual(LOGGED_OUT);
    }
  });

  it('answers loggedIn false after logout', async () => {
    const { username, password } = await registerUser(app);
    const token = await login(app, username, password);
    expect((await request(app).post('/api/user/logout').set(bearer(token))).status).toBe(200);
    const res = await request(app).get('/api/user/status').set(bearer(token));
    expect(res.body).toEqual(LOGGED_OUT);
  });
});

describe('GET /api/user/status over time', () => {
  it.concurrent.each(SCHEMES)(
    'answers loggedIn false once the session has expired (TOKEN_SCHEME=%s)',
    async (scheme) => {
      const { app: shortLived } = buildApp(stores, { tokenScheme: scheme, tokenTtl: 1 });
      const { username, password } = await registerUser(shortLived);
      const token = await login(shortLived, username, password);
      const live = await request(shortLived).get('/api/user/status').set(bearer(token));
      expect(live.body.data).toMatchObject({ loggedIn: true, username });
      await sleep(2100);
      const res = await request(shortLived).get('/api/user/status').set(bearer(token));
      expect(res.body).toEqual(LOGGED_OUT);
      const key = scheme === 'md5' ? token : `session:${sha256(token)}`;
      expect(await stores.redis.exists(key)).toBe(0);
    },
  );
});
