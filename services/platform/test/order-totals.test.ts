import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keptKeys } from '../src/idempotency/kept-keys.js';
import { ORDER_TOTALS, orderRepository } from '../src/orders/order.repository.js';
import { cachedCounts } from '../src/store/cached-counts.js';
import { platformDatabase } from '../src/store/database.js';
import {
  addMerchant,
  addOrder,
  addService,
  createRecordedApp,
  createTestApp,
  execute,
  type TestApp,
  testLogs,
} from './support/test-app.js';

describe('cachedCounts', () => {
  const counter = (totals: number[]) => {
    const countRows = vi.fn(async () => totals.shift() ?? -1);
    return countRows;
  };

  it('counts a short list on every request', async () => {
    const counts = cachedCounts({ floor: 100, ttlMs: 60_000 });
    const countRows = counter([5, 6]);
    expect(await counts.get('k', countRows)).toEqual({ rows: 5, counted: true });
    expect(await counts.get('k', countRows)).toEqual({ rows: 6, counted: true });
    expect(countRows).toHaveBeenCalledTimes(2);
  });

  it('reuses a long list total until it expires or is cleared', async () => {
    vi.useFakeTimers();
    try {
      const counts = cachedCounts({ floor: 100, ttlMs: 1000 });
      const countRows = counter([500, 501, 502]);
      expect(await counts.get('k', countRows)).toEqual({ rows: 500, counted: true });
      expect(await counts.get('k', countRows)).toEqual({ rows: 500, counted: false });
      vi.advanceTimersByTime(1001);
      expect(await counts.get('k', countRows)).toEqual({ rows: 501, counted: true });
      counts.clear();
      expect(await counts.get('k', countRows)).toEqual({ rows: 502, counted: true });
      expect(countRows).toHaveBeenCalledTimes(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps totals apart by key', async () => {
    const counts = cachedCounts({ floor: 100, ttlMs: 60_000 });
    expect((await counts.get('a', counter([500]))).rows).toBe(500);
    expect((await counts.get('b', counter([700]))).rows).toBe(700);
    expect((await counts.get('a', counter([1]))).rows).toBe(500);
  });

  it('shares one count among concurrent requests and keeps no failure', async () => {
    const counts = cachedCounts({ floor: 100, ttlMs: 60_000 });
    let fail: (err: Error) => void = () => {};
    const failing = vi.fn(
      () =>
        new Promise<number>((_resolve, reject) => {
          fail = reject;
        }),
    );
    const first = counts.get('k', failing);
    const second = counts.get('k', failing);
    fail(new Error('store down'));
    await expect(first).rejects.toThrow('store down');
    await expect(second).rejects.toThrow('store down');
    expect(failing).toHaveBeenCalledTimes(1);
    expect(await counts.get('k', counter([9]))).toEqual({ rows: 9, counted: true });
  });
});

describe('X-Total-Count of a long order list (real MySQL)', () => {
  let t: TestApp;
  let serviceId: number;
  const LONG = ORDER_TOTALS.floor + 10;

  beforeAll(async () => {
    t = await createTestApp();
    const merchantId = await addMerchant(t.app);
    serviceId = await addService(t.app, merchantId);
    const rows = Array.from({ length: LONG }, (_, i) => [serviceId, `客户${i}`, '13900000000', 1]);
    await execute(
      t.pool,
      'INSERT INTO orders (service_id, user_name, user_phone, status) VALUES ?',
      [rows],
    );
  });
  afterAll(async () => {
    await t.close();
  });

  const total = async (query: string) => {
    const res = await request(t.app).get(`/api/order/list?${query}&page=1&pageSize=5`);
    expect(res.body.data).toHaveLength(5);
    return Number(res.headers['x-total-count']);
  };

  it('is exact at first and, once the cache time has passed, sees a direct write', async () => {
    expect(await total('status=1')).toBe(LONG);
    await execute(t.pool, 'UPDATE orders SET status = 2 WHERE status = 1 ORDER BY id LIMIT 1');
    await new Promise((resolve) => setTimeout(resolve, ORDER_TOTALS.ttlMs + 100));
    expect(await total('status=1')).toBe(LONG - 1);
  });

  it('keeps no page whose total was reused, so a total is never more than the cache time old', async () => {
    const other = createRecordedApp({ pool: t.pool, logger: testLogs('order-totals').logger });
    const before = await total('status=');
    // On another instance: this one's count is not cleared, the lists' stamp moves.
    await addOrder(other, serviceId);
    await new Promise((resolve) => setTimeout(resolve, ORDER_TOTALS.ttlMs / 2));
    // Built again for the new stamp, with the total counted before the order.
    await total('status=');
    await new Promise((resolve) => setTimeout(resolve, ORDER_TOTALS.ttlMs / 2 + 100));
    expect(await total('status=')).toBe(before + 1);
  });

  it("counts this instance's own new order at once", async () => {
    const before = await total('status=');
    await addOrder(t.app, serviceId);
    expect(await total('status=')).toBe(before + 1);
  });

  // A cache time no test can outrun, so the lag is shown deterministically.
  it('keeps a long list total for its cache time, whatever SQL writes meanwhile; its own insert clears it', async () => {
    const db = platformDatabase(t.pool);
    const orders = orderRepository(db, keptKeys(db, 60), {
      insertConcurrency: 2,
      totals: cachedCounts({ floor: ORDER_TOTALS.floor, ttlMs: 60_000 }),
    });
    const before = (await orders.list(1).count()).rows;
    expect(before).toBeGreaterThanOrEqual(ORDER_TOTALS.floor);
    await execute(t.pool, 'UPDATE orders SET status = 2 WHERE status = 1 ORDER BY id LIMIT 1');
    expect(await orders.list(1).count()).toEqual({ rows: before, counted: false });
    await orders.create({ service_id: serviceId, user_name: '李四', user_phone: '13912345678' });
    expect(await orders.list(1).count()).toEqual({ rows: before - 1, counted: true });
  });
});
