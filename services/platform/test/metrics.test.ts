import { parsePrometheusText, sampleValue } from '@svc/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addMerchant,
  addService,
  createTestApp,
  execute,
  orderInput,
  type TestApp,
} from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ withMetrics: true });
});
afterAll(() => t.close());

async function scrape() {
  const res = await request(t.app).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(res.text);
}

const requests = (
  samples: ReturnType<typeof parsePrometheusText>,
  labels: Record<string, string>,
) => sampleValue(samples, 'http_requests_total', labels);

describe('GET /metrics on the platform', () => {
  it('counts requests by method, route template and status, and times them', async () => {
    const before = await scrape();
    const id = await addMerchant(t.app);
    await request(t.app).put(`/api/merchant/approve/${id}`);
    await request(t.app).put(`/api/merchant/approve/${id}`);
    await request(t.app).get('/api/merchant/list');
    const after = await scrape();

    const approve = { method: 'PUT', route: '/api/merchant/approve/:id', status: '200' };
    expect(requests(after, approve) - requests(before, approve)).toBe(2);
    const list = { method: 'GET', route: '/api/merchant/list', status: '200' };
    expect(requests(after, list) - requests(before, list)).toBe(1);
    expect(
      sampleValue(after, 'http_request_duration_seconds_count', approve) -
        sampleValue(before, 'http_request_duration_seconds_count', approve),
    ).toBe(2);
    expect(sampleValue(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('keeps ids and unknown paths out of the labels: the label set does not grow', async () => {
    await request(t.app).put('/api/merchant/approve/1');
    await request(t.app).get('/no/such/path/1');
    const labelSets = (samples: ReturnType<typeof parsePrometheusText>) =>
      samples
        .filter((sample) => sample.name === 'http_requests_total')
        .map((sample) => JSON.stringify(sample.labels))
        .sort();
    const before = labelSets(await scrape());
    for (let id = 100_000; id < 100_050; id++) {
      await request(t.app).put(`/api/merchant/approve/${id}`);
      await request(t.app).get(`/no/such/path/${id}`);
    }
    const after = labelSets(await scrape());
    expect(after).toEqual(before);
    const all = (await scrape()).filter((sample) => sample.name === 'http_requests_total');
    expect(all.some((sample) => /\d{6}/.test(sample.labels.route ?? ''))).toBe(false);
    expect(
      sampleValue(all, 'http_requests_total', { route: 'unmatched', status: '404', method: 'GET' }),
    ).toBeGreaterThanOrEqual(51);
  });

  it('counts a bad or oversized body on a known route under its template; unmatched is for unknown paths', async () => {
    const add = { method: 'POST', route: '/api/merchant/add', status: '200' };
    const unmatched = { method: 'POST', route: 'unmatched', status: '404' };
    const before = await scrape();
    const malformed = await request(t.app)
      .post('/api/merchant/add')
      .set('content-type', 'application/json')
      .send('{"name":');
    expect(malformed.body).toMatchObject({ code: 400 });
    const oversized = await request(t.app)
      .post('/api/merchant/add')
      .send({ name: 'x'.repeat(200 * 1024), address: 'a', phone: '1' });
    expect(oversized.body).toMatchObject({ code: 413 });
    expect((await request(t.app).post('/no/such/path').send({})).status).toBe(404);
    const after = await scrape();

    expect(requests(after, add) - requests(before, add)).toBe(2);
    expect(requests(after, unmatched) - requests(before, unmatched)).toBe(1);
  });

  it('shows the MySQL pool: connections in use, free and queued', async () => {
    const held = await t.pool.getConnection();
    try {
      const samples = await scrape();
      const state = (name: string) =>
        sampleValue(samples, 'mysql_pool_connections', { state: name });
      expect(state('in_use')).toBeGreaterThanOrEqual(1);
      expect(state('queued')).toBe(0);
      const heldNow = state('in_use');
      held.release();
      const released = await scrape();
      expect(sampleValue(released, 'mysql_pool_connections', { state: 'in_use' })).toBe(
        heldNow - 1,
      );
      expect(
        sampleValue(released, 'mysql_pool_connections', { state: 'free' }),
      ).toBeGreaterThanOrEqual(1);
    } finally {
      held.release();
    }
  });

  it('shows new orders waiting for a connection to share an INSERT', async () => {
    const serviceId = await addService(t.app, await addMerchant(t.app));
    const connections = t.pool.pool.config.connectionLimit ?? 10;
    const gauges = async () => {
      const samples = await scrape();
      return {
        waiting: sampleValue(samples, 'mysql_insert_rows_waiting'),
        queued: sampleValue(samples, 'mysql_pool_connections', { state: 'queued' }),
      };
    };
    expect(await gauges()).toEqual({ waiting: 0, queued: 0 });
    const held = await Promise.all(
      Array.from({ length: connections }, () => t.pool.getConnection()),
    );
    // The two INSERTs the platform runs at a time (INSERT_CONCURRENCY) wait in the pool's
    // queue with an order each; the three orders after them wait in line.
    const created = Promise.all(
      Array.from({ length: 5 }, () =>
        request(t.app)
          .post('/api/order/create')
          .send({ ...orderInput, service_id: serviceId }),
      ),
    );
    try {
      // The pool's queue may also hold a scrape's read of the events' age.
      await expect
        .poll(async () => {
          const { waiting, queued } = await gauges();
          return waiting === 3 && queued >= 2;
        })
        .toBe(true);
    } finally {
      for (const connection of held) connection.release();
    }
    for (const res of await created) expect(res.body).toMatchObject({ code: 200 });
    expect(await gauges()).toEqual({ waiting: 0, queued: 0 });
  });
});

describe('the events metrics', () => {
  it('count the events written by type, and show the oldest undelivered event and the open streams', async () => {
    const written = (samples: ReturnType<typeof parsePrometheusText>) =>
      sampleValue(samples, 'platform_events_written_total', { type: 'merchant.added' }) || 0;
    await request(t.app).get('/api/events?limit=1').expect(200);
    const before = await scrape();
    expect(sampleValue(before, 'platform_events_oldest_undelivered_seconds')).toBe(0);
    await addMerchant(t.app);
    // Not published yet (no publisher runs here): as if written a minute ago.
    await execute(
      t.pool,
      `UPDATE events SET created_at = NOW(3) - INTERVAL 60 SECOND
       WHERE id IS NULL OR id > (SELECT last_id FROM event_counter WHERE name = 'published')`,
    );
    const waiting = sampleValue(await scrape(), 'platform_events_oldest_undelivered_seconds');
    expect(waiting).toBeGreaterThanOrEqual(60);
    expect(waiting).toBeLessThan(70);
    await request(t.app).get('/api/events?limit=1').expect(200);
    const after = await scrape();
    expect(written(after) - written(before)).toBe(1);
    expect(sampleValue(after, 'platform_events_oldest_undelivered_seconds')).toBe(0);
    expect(sampleValue(after, 'platform_event_streams_open')).toBe(0);
    expect(sampleValue(after, 'platform_webhook_deliveries_total', { outcome: 'delivered' })).toBe(
      0,
    );
  });
});
