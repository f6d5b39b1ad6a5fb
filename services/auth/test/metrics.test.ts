import { connectRedis, createMetrics } from '@svc/common';
import { parsePrometheusText, sampleValue, startRedisServer } from '@svc/test-kit';
import type { Express } from 'express';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { suiteStores } from './support/suite-setup.js';
import { bearer, login, registerUser, testLogs, uniqueName } from './support/test-app.js';

const stores = suiteStores();
const { logger } = testLogs('auth-metrics');

async function scrape(app: Express) {
  const res = await request(app).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(res.text);
}

describe('GET /metrics on auth', () => {
  let app: Express;
  beforeAll(() => {
    const metrics = createMetrics({ pool: stores.pool });
    app = createApp({ ...stores, logger, metrics });
  });

  it('counts logins by outcome: success, failure and locked', async () => {
    const { username, password } = await registerUser(app);
    await login(app, username, password);
    for (let i = 0; i < 5; i++) {
      await request(app).post('/api/user/login').send({ username, password: 'wrong-one' });
    }
    await request(app).post('/api/user/login').send({ username, password });
    const samples = await scrape(app);
    const logins = (outcome: string) => sampleValue(samples, 'auth_logins_total', { outcome });
    expect([logins('success'), logins('failure'), logins('locked')]).toEqual([1, 5, 1]);
    expect(
      sampleValue(samples, 'http_requests_total', {
        method: 'POST',
        route: '/api/user/login',
        status: '429',
      }),
    ).toBe(1);
  });

  it('counts guard answers by outcome', async () => {
    const before = await scrape(app);
    const { username, password } = await registerUser(app, uniqueName('metrics'));
    const token = await login(app, username, password);
    await request(app).get('/api/user/me').set(bearer(token));
    await request(app).get('/api/user/me');
    await request(app)
      .get('/api/user/me')
      .set(bearer('f'.repeat(64)));
    const after = await scrape(app);
    const moved = (outcome: string) =>
      sampleValue(after, 'auth_guard_answers_total', { outcome }) -
      sampleValue(before, 'auth_guard_answers_total', { outcome });
    expect([moved('allowed'), moved('missing'), moved('invalid')]).toEqual([1, 1, 1]);
    expect(sampleValue(after, 'redis_up')).toBe(1);
    expect(sampleValue(after, 'mysql_pool_connections', { state: 'free' })).toBeGreaterThanOrEqual(
      1,
    );
  });
});

describe('http_requests_total for a body the route refuses', () => {
  it('counts a bad or oversized body on a known route under its template; unmatched is for unknown paths', async () => {
    const app = createApp({ ...stores, logger, metrics: createMetrics(), bodyLimitKb: 1 });
    const register = (status: string) => ({ method: 'POST', route: '/api/user/register', status });
    const before = await scrape(app);
    const malformed = await request(app)
      .post('/api/user/register')
      .set('content-type', 'application/json')
      .send('{"username":');
    expect(malformed.status).toBe(400);
    const oversized = await request(app)
      .post('/api/user/register')
      .send({ username: 'big_body', password: 'x'.repeat(2048) });
    expect(oversized.status).toBe(413);
    expect((await request(app).post('/no/such/path').send({})).status).toBe(404);
    const after = await scrape(app);

    const moved = (labels: Record<string, string>) =>
      sampleValue(after, 'http_requests_total', labels) -
      sampleValue(before, 'http_requests_total', labels);
    expect(moved(register('400'))).toBe(1);
    expect(moved(register('413'))).toBe(1);
    expect(moved({ method: 'POST', route: 'unmatched', status: '404' })).toBe(1);
    expect(moved({ method: 'POST', route: 'unmatched', status: '400' })).toBe(0);
    expect(moved({ method: 'POST', route: 'unmatched', status: '413' })).toBe(0);
  });
});

describe('redis_up and the guard while Redis is down', () => {
  it('flips to 0, counts the 503s as unavailable, and back to 1', async () => {
    const server = await startRedisServer();
    const redis = await connectRedis({ url: server.url, host: '', port: 0, db: 0 });
    try {
      const app = createApp({
        pool: stores.pool,
        redis,
        logger,
        metrics: createMetrics(),
      });
      const { username, password } = await registerUser(app);
      const token = await login(app, username, password);
      expect(sampleValue(await scrape(app), 'redis_up')).toBe(1);
      await server.stop();
      expect((await request(app).get('/api/user/me').set(bearer(token))).status).toBe(503);
      const down = await scrape(app);
      expect(sampleValue(down, 'redis_up')).toBe(0);
      expect(sampleValue(down, 'auth_guard_answers_total', { outcome: 'unavailable' })).toBe(1);
      await server.start();
      await expect
        .poll(async () => sampleValue(await scrape(app), 'redis_up'), { timeout: 10_000 })
        .toBe(1);
    } finally {
      redis.disconnect();
      await server.destroy();
    }
  });
});
