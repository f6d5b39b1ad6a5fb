import { migrate, type Pool, type RowDataPacket } from '@svc/common';
import { createTestDatabase, startMariaDbServer, type TestServer } from '@svc/test-kit';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEPT_MS, keptLists } from '../src/http/lists/kept-lists.js';
import { migrationsDir } from '../src/migrations-dir.js';
import {
  addMerchant,
  addOrder,
  addService,
  createPlatformPool,
  createRecordedApp,
  createTestApp,
  type TestApp,
  testLogs,
} from './support/test-app.js';

/*
 * Conditional list requests (RFC 9110): a strong ETag on every list, a 304
 * for the one the client has, the kept bodies that answer an unchanged list
 * without its rows, and never a stale one, on any instance.
 */

const ETAG = /^"[A-Za-z0-9_-]{27}"$/;

let t: TestApp;
let serviceId: number;
let cursor: string;

beforeAll(async () => {
  t = await createTestApp({ withMetrics: true });
  const merchant = await addMerchant(t.app);
  serviceId = await addService(t.app, merchant);
  for (let i = 0; i < 3; i++) await addOrder(t.app, serviceId);
  const first = await request(t.app).get('/api/order/list?pageSize=1');
  cursor = first.headers['x-next-cursor'] as string;
});
afterAll(async () => {
  await t.close();
});

const LISTS = () => [
  '/api/merchant/list',
  '/api/merchant/list?page=1&pageSize=1',
  '/api/service/list',
  `/api/service/list?category=${encodeURIComponent('保洁')}`,
  `/api/service/list?category=${encodeURIComponent('保洁')}&page=1&pageSize=5`,
  '/api/order/list',
  '/api/order/list?status=0',
  '/api/order/list?status=0&page=1&pageSize=2',
  '/api/order/list?pageSize=1',
  `/api/order/list?pageSize=1&cursor=${cursor ?? '<the first page’s X-Next-Cursor>'}`,
  '/order/list?status=0',
];

describe('every list route and variant', () => {
  it.each(LISTS().map((label, i) => [i, label] as const))(
    '#%i %s: a strong ETag, Cache-Control: no-cache, and a 304 for its tag',
    async (i) => {
      const path = LISTS()[i] as string;
      const first = await request(t.app).get(path);
      expect(first.status).toBe(200);
      expect(first.body.code).toBe(200);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(ETAG);
      expect(first.headers['cache-control']).toBe('no-cache');
      expect(first.headers['access-control-expose-headers']).toContain('ETag');

      for (const tags of [etag, `"other", ${etag}`, '*', `W/${etag}`]) {
        const again = await request(t.app).get(path).set('If-None-Match', tags);
        expect(again.status, `${path} If-None-Match: ${tags}`).toBe(304);
        expect(again.text).toBe('');
        expect(again.headers.etag).toBe(etag);
        expect(again.headers['cache-control']).toBe('no-cache');
        expect(again.headers['access-control-allow-origin']).toBe('*');
        expect(again.headers['access-control-expose-headers']).toContain('ETag');
        for (const name of ['x-total-count', 'x-next-cursor', 'link']) {
          expect(again.headers[name], name).toBe(first.headers[name]);
        }
      }
      // fetch() adds these to every conditional request; they are for caches, not for the service.
      const fetched = await request(t.app)
        .get(path)
        .set({ 'If-None-Match': etag, 'Cache-Control': 'no-cache', Pragma: 'no-cache' });
      expect(fetched.status, `${path} with Cache-Control: no-cache`).toBe(304);
      const other = await request(t.app).get(path).set('If-None-Match', '"not-this-one"');
      expect(other.status).toBe(200);
      expect(other.text).toBe(first.text);
      expect(other.headers.etag).toBe(etag);
    },
  );

  it('keeps the page headers with the kept body: X-Total-Count, X-Next-Cursor, Link', async () => {
    const first = await request(t.app).get('/api/order/list?pageSize=1');
    const kept = await request(t.app).get('/api/order/list?pageSize=1');
    for (const name of ['x-total-count', 'x-next-cursor', 'link']) {
      expect(kept.headers[name], name).toBe(first.headers[name]);
    }
    expect(kept.headers['x-total-count']).toBe('3');
  });

  it('gives the body a new ETag once a change is answered, and no 304 for the old one', async () => {
    const before = await request(t.app).get('/api/merchant/list');
    const added = await addMerchant(t.app, { name: '新商家' });
    const after = await request(t.app)
      .get('/api/merchant/list')
      .set('If-None-Match', before.headers.etag as string);
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.body.data.map((row: { id: number }) => row.id)).toContain(added);
  });

  it('answers the service list with and without `t` from one kept body', async () => {
    const counts = async () => {
      const text = (await request(t.app).get('/metrics')).text;
      const read = (result: string) =>
        Number(
          new RegExp(`platform_list_cache_requests_total\\{result="${result}"\\} (\\d+)`).exec(
            text,
          )?.[1],
        );
      return { hit: read('hit'), miss: read('miss') };
    };
    const plain = await request(t.app).get('/api/service/list?category=x');
    const before = await counts();
    const busted = await Promise.all(
      [1, 2, 3].map((n) => request(t.app).get(`/api/service/list?category=x&t=${Date.now() + n}`)),
    );
    const after = await counts();
    for (const res of busted) {
      expect(res.text).toBe(plain.text);
      expect(res.headers.etag).toBe(plain.headers.etag);
    }
    expect(after.hit - before.hit).toBe(3);
    expect(after.miss - before.miss).toBe(0);
    expect((await request(t.app).get('/metrics')).text).toMatch(/platform_list_cache_bytes \d+/);
  });

  it('sends a kept body byte for byte as a freshly built one', async () => {
    // Another instance, whose first answer of each list is built afresh.
    const fresh = createRecordedApp({ pool: t.pool, logger: testLogs('list-etags').logger });
    for (const path of LISTS()) {
      const kept = await request(t.app).get(path);
      const again = await request(t.app).get(path);
      const built = await request(fresh).get(path);
      expect(again.text, path).toBe(kept.text);
      expect(built.text, path).toBe(kept.text);
      expect(built.headers.etag, path).toBe(kept.headers.etag);
    }
  });
});

describe('a kept list', () => {
  let server: TestServer;
  let pool: Pool;
  let app: Express;
  beforeAll(async () => {
    server = await startMariaDbServer();
    pool = await createPlatformPool((await createTestDatabase(server.url)).settings);
    await migrate(pool, migrationsDir);
    app = createRecordedApp({ pool, logger: testLogs('list-etags').logger });
    const merchant = await addMerchant(app);
    await addService(app, merchant);
  });
  afterAll(async () => {
    await pool.end();
    await server.destroy();
  });

  const selects = async () => {
    const [rows] = await pool.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Com_select'");
    return Number(rows[0]?.Value);
  };

  it('is answered, 200 or 304, with one read of the events and the newest ids, and none of its rows', async () => {
    const first = await request(app).get('/api/merchant/list');
    const etag = first.headers.etag as string;
    for (const send of [
      () => request(app).get('/api/merchant/list'),
      () => request(app).get('/api/merchant/list').set('If-None-Match', etag),
    ]) {
      const before = await selects();
      const res = await send();
      expect([200, 304]).toContain(res.status);
      // The stamp's one read alone.
      expect((await selects()) - before).toBe(1);
    }
    const before = await selects();
    await request(app).get('/api/merchant/list?page=1');
    // A list not kept yet: the stamp's read, its page and its count.
    expect((await selects()) - before).toBe(3);
  });

  it('shows rows inserted around the service (in SQL) at once, and rows changed around it within KEPT_MS', async () => {
    const names = (res: request.Response) => res.body.data.map((row: { name: string }) => row.name);
    await request(app).get('/api/merchant/list');
    await pool.query("INSERT INTO merchants (name, address, phone) VALUES ('by hand', 'x', '1')");
    expect(names(await request(app).get('/api/merchant/list'))).toContain('by hand');

    await pool.query("UPDATE merchants SET name = 'changed by hand' WHERE name = 'by hand'");
    await new Promise((resolve) => setTimeout(resolve, KEPT_MS + 50));
    expect(names(await request(app).get('/api/merchant/list'))).toContain('changed by hand');
  });

  it('is read again after a change to the rows it shows of another family, and keeps its ETag when its bytes are the same', async () => {
    const merchant = await addMerchant(app);
    const first = await request(app).get('/api/service/list?page=1');
    const kept = await selects();
    await request(app).get('/api/service/list?page=1');
    expect((await selects()) - kept).toBe(1);

    // A service shows its merchant's name: the merchant's change moves the service list's stamp.
    await request(app).put(`/api/merchant/approve/${merchant}`).expect(200);
    const before = await selects();
    const again = await request(app)
      .get('/api/service/list?page=1')
      .set('If-None-Match', first.headers.etag as string);
    expect((await selects()) - before).toBe(3);
    expect(again.status).toBe(304);
  });
});

describe('two instances on one database', () => {
  it('lists on one instance every change answered on the other, at once, many times over', async () => {
    const other = createRecordedApp({ pool: t.pool, logger: testLogs('list-etags').logger });
    for (const app of [t.app, other]) {
      await request(app).get('/api/merchant/list');
      await request(app).get('/api/order/list?status=0');
      await request(app).get('/api/service/list');
    }
    for (let i = 0; i < 30; i++) {
      const [from, to] = i % 2 === 0 ? [t.app, other] : [other, t.app];
      const merchant = await addMerchant(from, { name: `race-${i}` });
      const merchants = await request(to).get('/api/merchant/list');
      expect(merchants.body.data.map((row: { id: number }) => row.id)).toContain(merchant);

      const order = await addOrder(from, serviceId);
      const orders = await request(to).get('/api/order/list?status=0');
      expect(orders.body.data.map((row: { id: number }) => row.id)).toContain(order);

      const status = i % 2 === 0 ? 'publish' : 'unpublish';
      await request(from).put(`/api/service/${status}/${serviceId}`);
      const services = await request(to).get('/api/service/list');
      const row = services.body.data.find((s: { id: number }) => s.id === serviceId);
      expect(row.status, `after ${status}`).toBe(i % 2 === 0 ? 1 : 0);
    }
  });
});

describe('the kept bodies, bounded', () => {
  it('keep at most their bytes, the least recently sent leaving first', async () => {
    const lists = keptLists({ maxBytes: 250, stamp: async () => 'same' });
    const answers = new Map<string, number>();
    const send = async (path: string) => {
      const res = {
        set: () => res,
        status: () => res,
        end: () => {},
        type: () => res,
        send: () => {},
      };
      await lists.send(
        { originalUrl: path, headers: {} } as never,
        res as never,
        'merchant',
        async () => {
          answers.set(path, (answers.get(path) ?? 0) + 1);
          return { body: Buffer.alloc(100), headers: {}, keep: true };
        },
      );
    };
    await send('/a');
    await send('/b');
    await send('/a');
    await send('/c');
    expect(lists.counts().bytes).toBe(200);
    await send('/a');
    await send('/b');
    // a and c were kept; b, the least recently sent, had to go for c.
    expect(Object.fromEntries(answers)).toEqual({ '/a': 1, '/b': 2, '/c': 1 });
    expect(lists.counts().bytes).toBeLessThanOrEqual(250);
  });
});
