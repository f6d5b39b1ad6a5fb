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
} from './support/test-app.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let stores: Stores;
beforeAll(async () => {
  stores = await openStores();
});
afterAll(() => stores.close());

describe.each(SCHEMES)('POST /api/user/logout (TOKEN_SCHEME=%s)', (scheme) => {
  const sessionKey = (token: string) => (scheme === 'md5' ? token : `session:${sha256(token)}`);
  let app: ReturnType<typeof buildApp>['app'];
  beforeAll(() => {
    app = buildApp(stores, { tokenScheme: scheme }).app;
  });

  it('ends the session it is called with; the token then gets 401', async () => {
    const { username, password } = await registerUser(app);
    const token = await login(app, username, password);
    const res = await request(app).post('/api/user/logout').set({ token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: '已退出登录' });
    expect(await stores.redis.exists(sessionKey(token))).toBe(0);

    for (const route of ['/api/user/me', '/api/user/logout']) {
      const again =
        route === '/api/user/me'
          ? await request(app).get(route).set(bearer(token))
          : await request(app).post(route).set(bearer(token));
      expect(again.status).toBe(401);
      expect(again.body).toEqual(INVALID_TOKEN);
    }
  });

  it('answers 401 without a token', async () => {
    const res = await request(app).post('/api/user/logout');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NO_TOKEN);
  });

  if (scheme === 'random') {
    it("leaves the user's other sessions alive and drops only this one from the index", async () => {
      const { username, password } = await registerUser(app);
      const phone = await login(app, username, password);
      const laptop = await login(app, username, password);
      expect((await request(app).post('/api/user/logout').set(bearer(phone))).status).toBe(200);

      expect((await request(app).get('/api/user/me').set(bearer(laptop))).status).toBe(200);
      expect(await stores.redis.smembers(`session:user:${username.toLowerCase()}`)).toEqual([
        sha256(laptop),
      ]);
    });
  } else {
    it('a new login issues the same token again, which works', async () => {
      const { username, password } = await registerUser(app);
      const token = await login(app, username, password);
      expect((await request(app).post('/api/user/logout').set(bearer(token))).status).toBe(200);
      expect(await login(app, username, password)).toBe(token);
      expect((await request(app).get('/api/user/me').set(bearer(token))).status).toBe(200);
    });
  }
});
