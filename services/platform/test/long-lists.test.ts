import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptLists } from '../src/http/lists/kept-lists.js';
import { sendList } from '../src/http/lists/send-list.js';
import { createSlots } from '../src/http/lists/slots.js';
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

/**
 * Lists longer than the kept bodies may hold (a kilobyte here) are sent as
 * they are read; a new stamp for every request keeps each build its own.
 */
let stamps = 0;
const streamingDeps = (wholeLists: ReturnType<typeof createSlots>) => ({
  wholeLists,
  kept: keptLists({ maxBytes: 1000, stamp: async () => String(stamps++) }),
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
    const app = express().get('/slow', async (req, res) => {
      const list = {
        all: async () => slowRows(),
        page: async () => [],
        count: async () => ({ rows: 0, counted: true }),
      };
      await sendList(req, res, list, streamingDeps(createSlots(1)), 'order');
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

describe('a whole list whose client leaves while it waits in line', () => {
  it('gives its slot back, so the lists after it are served', async () => {
    let finishHolder = () => {};
    const holderDone = new Promise<void>((resolve) => {
      finishHolder = resolve;
    });
    async function* heldRows() {
      yield Buffer.from('{"id":1}');
      await holderDone;
    }
    const list = (rows: () => AsyncIterable<Buffer>) => ({
      all: async () => rows(),
      page: async () => [],
      count: async () => ({ rows: 0, counted: true }),
    });
    const slots = createSlots(1, 60_000, 60_000);
    let served = 0;
    const app = express().get('/list', async (req, res) => {
      const rows =
        served++ === 0
          ? heldRows
          : async function* () {
              yield Buffer.from('{"id":2}');
            };
      await sendList(req, res, list(rows), streamingDeps(slots), 'order');
    });
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    try {
      // Its rows held: it keeps the one slot (and, being short enough to keep, has no answer yet).
      const holder = fetch(`${base}/list`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // A client that sends its request, then hangs up while it waits in line.
      const leaving = connect(port, '127.0.0.1');
      leaving.write('GET /list HTTP/1.1\r\nHost: x\r\n\r\n');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(served).toBe(2);
      leaving.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      finishHolder();
      expect(((await (await holder).json()) as { data: unknown }).data).toEqual([{ id: 1 }]);
      // Had the one who left kept the only slot, this list would wait for a minute.
      const next = await fetch(`${base}/list`, { signal: AbortSignal.timeout(3000) });
      expect(((await next.json()) as { data: unknown }).data).toEqual([{ id: 2 }]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
