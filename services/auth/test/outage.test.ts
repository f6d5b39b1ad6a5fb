import { connectRedis, createMysqlPool, migrate, type Pool } from '@svc/common';
import {
  createTestDatabase,
  startMariaDbServer,
  startRedisServer,
  type TestServer,
} from '@svc/test-kit';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsDir } from '../src/migrations-dir.js';
import { suiteStores } from './support/suite-setup.js';
import {
  bearer,
  buildApp,
  INVALID_TOKEN,
  login,
  NO_TOKEN,
  registerUser,
  testLogs,
  UNAVAILABLE,
  uniqueName,
} from './support/test-app.js';

describe('Redis unavailable', () => {
  const stores = suiteStores();
  let redisServer: TestServer;
  let redis: Redis;
  const logs = testLogs('auth');
  let app: ReturnType<typeof buildApp>['app'];
  beforeAll(async () => {
    redisServer = await startRedisServer();
    redis = await connectRedis({ url: redisServer.url, host: '', port: 0, db: 0 }, logs.logger);
    app = buildApp({ pool: stores.pool, redis }, {}, logs).app;
  });
  afterAll(async () => {
    redis.disconnect();
    await redisServer.destroy();
  });

  it('answers 503 where a session is needed, serves what needs none, and recovers without a restart', async () => {
    const account = await registerUser(app);
    const token = await login(app, account.username, account.password);
    await redisServer.stop();

    const guarded = [
      request(app).get('/api/user/me').set(bearer(token)),
      request(app).post('/api/user/logout').set({ token }),
      request(app)
        .post('/api/user/change-password')
        .set(bearer(token))
        .send({ oldPassword: account.password, newPassword: 'next-password' }),
      request(app).get('/api/user/status').set(bearer(token)),
      request(app).get('/api/user/sessions').set(bearer(token)),
      request(app).delete('/api/user/sessions/Jm0xQ2v9T3aPqL8sWc1yZA').set(bearer(token)),
      request(app).delete('/api/user/sessions').set(bearer(token)),
      request(app).post('/api/user/logout-all').set(bearer(token)),
      request(app).post('/api/user/login').send(account),
      request(app).post('/api/user/login').send({ username: account.username, password: 'wrong' }),
    ];
    for (const [i, res] of (await Promise.all(guarded)).entries()) {
      expect(res.status, `call ${i}`).toBe(503);
      expect(res.body).toEqual(UNAVAILABLE);
    }

    // No store needed: the usual answers.
    expect((await request(app).get('/api/user/me')).body).toEqual(NO_TOKEN);
    expect((await request(app).get('/api/user/me').set('token', 'short')).body).toEqual(
      INVALID_TOKEN,
    );
    expect((await request(app).get('/api/user/status')).body).toEqual({
      code: 200,
      message: '获取成功',
      data: { loggedIn: false },
    });
    expect((await request(app).get('/healthz')).status).toBe(200);
    // Register touches only MySQL.
    expect(
      (
        await request(app)
          .post('/api/user/register')
          .send({ username: uniqueName(), password: 'during-outage' })
      ).status,
    ).toBe(200);

    // Each 503 is logged with the request's id.
    const failed = await request(app)
      .get('/api/user/me')
      .set('X-Request-Id', 'outage-me-1')
      .set(bearer(token));
    expect(failed.status).toBe(503);
    const entry = logs
      .entries()
      .find((line) => line.reqId === 'outage-me-1' && line.msg === 'store unavailable');
    expect(entry).toMatchObject({
      level: 50,
      err: { message: expect.stringMatching(/^redis is unavailable: /) },
    });
    expect(logs.text()).not.toContain(token);
    expect(logs.text()).not.toContain(account.password);

    await redisServer.start();
    await expect
      .poll(async () => (await request(app).post('/api/user/login').send(account)).status, {
        timeout: 10_000,
      })
      .toBe(200);
    // The throwaway server keeps no data, so a new session is needed.
    const fresh = await login(app, account.username, account.password);
    const me = await request(app).get('/api/user/me').set(bearer(fresh));
    expect(me.body).toEqual({
      code: 200,
      message: '获取成功',
      data: { username: account.username, totp: false },
    });
  });

  it('answers 503 within the command timeout when Redis hangs, then recovers', async () => {
    const account = await registerUser(app);
    const token = await login(app, account.username, account.password);
    redisServer.pause();
    try {
      const started = Date.now();
      const res = await request(app).get('/api/user/me').set(bearer(token));
      expect(res.status).toBe(503);
      expect(res.body).toEqual(UNAVAILABLE);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      redisServer.resume();
    }
    await expect
      .poll(async () => (await request(app).get('/api/user/me').set(bearer(token))).status, {
        timeout: 10_000,
      })
      .toBe(200);
  });
});

describe('MySQL unavailable', () => {
  const stores = suiteStores();
  let mysqlServer: TestServer;
  let pool: Pool;
  let app: ReturnType<typeof buildApp>['app'];
  beforeAll(async () => {
    mysqlServer = await startMariaDbServer();
    const database = await createTestDatabase(mysqlServer.url);
    pool = await createMysqlPool(database.settings);
    await migrate(pool, migrationsDir);
    app = buildApp({ pool, redis: stores.redis }).app;
  });
  afterAll(async () => {
    await pool.end();
    await mysqlServer.destroy();
  });

  it('answers 503 for register, login and change-password, keeps sessions valid, and recovers', async () => {
    const account = await registerUser(app);
    const token = await login(app, account.username, account.password);
    await mysqlServer.stop();

    const calls = [
      request(app)
        .post('/api/user/register')
        .send({ username: uniqueName(), password: 'outage-amber-kettle' }),
      request(app).post('/api/user/login').send(account),
      request(app)
        .post('/api/user/change-password')
        .set(bearer(token))
        .send({ oldPassword: account.password, newPassword: 'outage-copper-lamp' }),
    ];
    for (const [i, res] of (await Promise.all(calls)).entries()) {
      expect(res.status, `call ${i}`).toBe(503);
      expect(res.body).toEqual(UNAVAILABLE);
    }
    // Sessions live in Redis: a MySQL outage logs nobody out; whether TOTP is on, MySQL would say.
    const me = await request(app).get('/api/user/me').set(bearer(token));
    expect(me.body).toEqual({
      code: 200,
      message: '获取成功',
      data: { username: account.username, totp: null },
    });

    await mysqlServer.start();
    await expect
      .poll(async () => (await request(app).post('/api/user/login').send(account)).status, {
        timeout: 15_000,
      })
      .toBe(200);
  });
});
