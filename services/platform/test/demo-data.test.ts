import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../src/demo-data.js';
import { createTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('the demo data (pnpm seed)', () => {
  it('adds merchants, services and orders the API lists, and a second run adds nothing', async () => {
    expect(await seedDemoData(t.pool)).toEqual({ merchants: 3, services: 5, orders: 2 });
    expect(await t.counts()).toEqual({ merchants: 3, services: 5, orders: 2 });

    const cleaning = await request(t.app).get('/api/service/list').query({ category: '保洁' });
    expect(cleaning.body.code).toBe(200);
    expect(cleaning.body.data.map((row: { name: string }) => row.name).sort()).toEqual(
      ['日常保洁', '深度保洁'].sort(),
    );
    expect(cleaning.body.data[0]).toMatchObject({ merchant_name: '张三家政', status: 1 });
    const orders = await request(t.app).get('/api/order/list');
    expect(orders.body.data).toHaveLength(2);

    expect(await seedDemoData(t.pool)).toEqual({ merchants: 0, services: 0, orders: 0 });
    expect(await t.counts()).toEqual({ merchants: 3, services: 5, orders: 2 });
  });
});
