import { connectRedis } from '@svc/common';
import { createTestSession } from '@svc/session-guard';
import { startRedisServer } from '@svc/test-kit';
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
  UNAVAILABLE,
} from './support/test-app.js';

let stores: Stores;
beforeAll(async () => {
  stores = await openStores();
});
afterAll(() => stores.close());

describe.each(SCHEMES)('GET /api/user/verify (TOKEN_SCHEME=%s)', (scheme) => {
  let app: ReturnType<typeof buildApp>['app'];
  beforeAll(() => {
    app = buildApp(stores, { tokenScheme: scheme }).app;
  });

  it('answers 200 with the owner in the body and in X-Auth-User, for either header', async () => {
    const { username, password } = await registerUser(app);
    const token = await login(app, username, password);
    for (const headers of [bearer(token), { token }]) {
      const res = await request(app).get('/api/user/verify').set(headers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ code: 200, message: 'ok', data: { username } });
      expect(res.headers['x-auth-user']).toBe(username);
    }
  });

  it('percent-encodes a name that is not ASCII (an account from the old system)', async () => {
    const token = await createTestSession(stores.redis, { username: '张三 li', scheme });
    const res = await request(app).get('/api/user/verify').set(bearer(token));
    expect(res.status).toBe(200);
    expect(res.headers['x-auth-user']).toBe('%E5%BC%A0%E4%B8%89%20li');
    expect(decodeURIComponent(res.headers['x-auth-user'] as string)).toBe('张三 li');
  });

  it('answers the guard 401s: no token, and a token without a live session (logged out)', async () => {
    const none = await request(app).get('/api/user/verify');
    expect(none.status).toBe(401);
    expect(none.body).toEqual(NO_TOKEN);
    expect(none.headers['x-auth-user']).toBeUndefined();

    const { username, password } = await registerUser(app);
    const token = await login(app, username, password);
    await request(app).post('/api/user/logout').set(bearer(token)).expect(200);
    const dead = await request(app).get('/api/user/verify').set(bearer(token));
    expect(dead.status).toBe(401);
    expect(dead.body).toEqual(INVALID_TOKEN);
    expect(dead.headers['x-auth-user']).toBeUndefined();
  });
});

describe('GET /api/user/verify while Redis is down', () => {
  it('answers 503, never 401', async () => {
    const server = await startRedisServer();
    const redis = await connectRedis({ url: server.url, host: '', port: 0, db: 0 });
    try {
      const { app } = buildApp({ pool: stores.pool, redis });
      const token = await createTestSession(redis, { username: 'alice' });
      await server.stop();
      const res = await request(app).get('/api/user/verify').set(bearer(token));
      expect(res.status).toBe(503);
      expect(res.body).toEqual(UNAVAILABLE);
      expect(res.headers['x-auth-user']).toBeUndefined();
    } finally {
      redis.disconnect();
      await server.destroy();
    }
  });
});
