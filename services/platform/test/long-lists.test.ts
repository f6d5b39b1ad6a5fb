import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlots } from '../src/db/slots.js';
import { sendList } from '../src/http/list.js';
import {
  addMerchant,
  addService,
  createTestApp,
  execute,
  type TestApp,
} from './support/test-app.js';

const ORDERS = 6000;
let t: TestApp;
let serviceId: number;

beforeAll(async () => {
  t = await createTestApp();
  const merchantId = await addMerchant(t.app, { name: '长列表商家' });
  serviceId = await addService(t.app, merchantId, { name: '长列表服务', price: '88.80' });
  const rows = Array.from({ length: ORDERS }, (_, i) => [
    serviceId,
    `客户${i}`,
    '13900000000',
    i % 3,
  ]);
  await execute(t.pool, 'INSERT INTO orders (service_id, user_name, user_phone, status) VALUES ?', [
    rows,
  ]);
});
afterAll(async () => {
  await t.close();
});

describe('a whole list of thousands of orders', () => {
  it('arrives complete, in order, and in the spec envelope while it is streamed', async () => {
    const res = await request(t.app).get('/api/order/list');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.text.length).toBeGreaterThan(64 * 1024 * 10);
    expect(res.body.code).toBe(200);
    expect(res.body.message).toBe('获取成功');
    expect(res.body.data).toHaveLength(ORDERS);
    const ids: number[] = res.body.data.map((row: { id: number }) => row.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(res.body.data[0]).toMatchObject({
      service_id: serviceId,
      price: '88.80',
      service_name: '长列表服务',
    });
    const filtered = await request(t.app).get('/api/order/list?status=2');
    expect(filtered.body.data).toHaveLength(ORDERS / 3);
  });

  it('gives its connection back when the client leaves in the middle', async () => {
    const server = t.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      // More abandoned lists than the pool has connections: a leak would hang the next request.
      for (let i = 0; i < 12; i++) {
        const controller = new AbortController();
        const res = await fetch(`http://127.0.0.1:${port}/api/order/list`, {
          signal: controller.signal,
        });
        const reader = res.body?.getReader();
        await reader?.read();
        controller.abort();
      }
      // No abandoned list query is left running on the server.
      const running = async () => {
        const [rows] = await t.pool.query(
          "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE '%FROM orders o%' AND ID <> CONNECTION_ID()",
        );
        return Number((rows as { n: number }[])[0]?.n);
      };
      await expect.poll(running, { timeout: 5000 }).toBe(0);
      const after = await request(t.app).get('/api/merchant/list');
      expect(after.body).toMatchObject({ code: 200, message: '获取成功' });
      const again = await request(t.app).get('/api/order/list?status=0');
      expect(again.body.data).toHaveLength(ORDERS / 3);
    } finally {
      server.close();
    }
  });
});

describe('a streamed list whose client leaves while rows are still coming', () => {
  it('stops reading rows and lets the source close', async () => {
    let closed = false;
    async function* slowRows() {
      try {
        for (let i = 0; ; i++) {
          // Big enough rows that the first piece goes out, slow enough that the client leaves mid-list.
          yield Buffer.from(JSON.stringify({ id: i, pad: 'x'.repeat(2000) }));
          if (i % 40 === 39) await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        closed = true;
      }
    }
    const app = express().get('/slow', async (_req, res) => {
      await sendList(res, {
        wholeLists: createSlots(1),
        all: async () => slowRows(),
        page: async () => [],
        count: async () => 0,
      });
    });
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const controller = new AbortController();
      const res = await fetch(`http://127.0.0.1:${port}/slow`, { signal: controller.signal });
      await res.body?.getReader().read();
      controller.abort();
      await expect.poll(() => closed, { timeout: 3000 }).toBe(true);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
