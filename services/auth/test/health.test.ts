import { connectRedis, createMysqlPool, type Pool } from '@svc/common';
import {
  createTestDatabase,
  createTestRedis,
  startRedisServer,
  type TestServer,
} from '@svc/test-kit';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './support/test-app.js';

describe('health routes', () => {
  let redisServer: TestServer;
  let redis: Redis;
  let pool: Pool;
  beforeAll(async () => {
    redisServer = await startRedisServer();
    redis = await connectRedis({ url: redisServer.url, host: '', port: 0, db: 0 });
    pool = await createMysqlPool((await createTestDatabase()).settings);
  });
  afterAll(async () => {
    redis.disconnect();
    await pool.end();
    await redisServer.destroy();
  });

  it('answers /healthz, and /readyz naming the store that does not answer', async () => {
    const { app } = buildApp({ pool, redis });
    expect((await request(app).get('/healthz')).body).toEqual({
      code: 200,
      message: 'ok',
      data: { status: 'up' },
    });
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ code: 200, message: 'ok', data: { redis: 'up', mysql: 'up' } });

    await redisServer.stop();
    const down = await request(app).get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      code: 503,
      message: '服务暂不可用,请稍后重试',
      data: { redis: 'down', mysql: 'up' },
    });
    expect((await request(app).get('/healthz')).status).toBe(200);

    await redisServer.start();
    await expect
      .poll(async () => (await request(app).get('/readyz')).status, { timeout: 10_000 })
      .toBe(200);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const testRedis = await createTestRedis();
    expect(testRedis.settings.db).toBeGreaterThan(0);
    const res = await request(buildApp({ pool, redis }).app).get('/api/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: 'Not Found' });
  });
});
