import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { healthRouter } from '../src/health.js';

const NOT_READY = 'stores are not ready';
/** The service's envelope, which the probes answer in. */
const envelope = (code: number, message: string, data?: unknown) => ({ code, message, data });

describe('healthRouter', () => {
  const app = (checks: Parameters<typeof healthRouter>[0]) =>
    express().use(healthRouter(checks, { envelope, notReady: NOT_READY }));

  it('answers /healthz while the process runs, whatever the stores do', async () => {
    const res = await request(app({ redis: () => Promise.reject(new Error('down')) })).get(
      '/healthz',
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: 'ok', data: { status: 'up' } });
  });

  it('answers /readyz 200 when every store answers', async () => {
    const res = await request(app({ redis: async () => 'PONG', mysql: async () => 1 })).get(
      '/readyz',
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: 'ok', data: { redis: 'up', mysql: 'up' } });
  });

  it('answers /readyz 503 naming the failing store', async () => {
    const res = await request(
      app({ redis: async () => 'PONG', mysql: () => Promise.reject(new Error('ECONNREFUSED')) }),
    ).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      code: 503,
      message: NOT_READY,
      data: { redis: 'up', mysql: 'down' },
    });
  });

  it('counts a store that hangs as down within a bound', async () => {
    const started = Date.now();
    const res = await request(app({ mysql: () => new Promise(() => {}) })).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.data).toEqual({ mysql: 'down' });
    expect(Date.now() - started).toBeLessThan(4000);
  });
});
