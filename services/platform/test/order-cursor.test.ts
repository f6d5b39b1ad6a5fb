import type { Pool, RowDataPacket } from '@svc/common';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../src/orders/order-cursor.js';
import {
  addMerchant,
  addOrder,
  addService,
  createPlatformPool,
  createRecordedApp,
  createTestApp,
  execute,
  type TestApp,
  testLogs,
} from './support/test-app.js';

const MALFORMED = 'cursor is malformed or was altered: send the X-Next-Cursor of the page before';
const OTHER_STATUS = 'cursor was made for another status: send the status of the page before';
const refused = (error: string) => ({ code: 400, message: '获取失败', error });
const CURSOR = /^[A-Za-z0-9_-]+$/;

let t: TestApp;
let serviceId: number;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.reset();
  serviceId = await addService(t.app, await addMerchant(t.app));
});

/** Orders at the given times (several may share a second) and statuses; returns ids, newest first. */
async function seed(rows: [time: string, status: number][]): Promise<number[]> {
  const placed: { id: number; time: string }[] = [];
  for (const [time, status] of rows) {
    const id = await addOrder(t.app, serviceId);
    await execute(t.pool, 'UPDATE orders SET create_time = ?, status = ? WHERE id = ?', [
      time,
      status,
      id,
    ]);
    placed.push({ id, time });
  }
  return placed
    .sort((a, b) => (a.time === b.time ? b.id - a.id : a.time < b.time ? 1 : -1))
    .map((row) => row.id);
}

const minutes = (n: number, status = 0) =>
  Array.from({ length: n }, (_, i): [string, number] => [
    `2026-01-01 10:${String(i % 60).padStart(2, '0')}:00`,
    status,
  ]);

const ids = (res: request.Response) => res.body.data.map((row: { id: number }) => row.id);

/** Follows the Link of each page to the end; returns every page's answer. */
async function walk(app: Express, first: string) {
  const pages: request.Response[] = [];
  for (let url: string | undefined = first; url; ) {
    const res = await request(app).get(url);
    expect(res.body.code, JSON.stringify(res.body)).toBe(200);
    pages.push(res);
    url = /^<([^>]+)>; rel="next"$/.exec(res.headers.link ?? '')?.[1];
  }
  return pages;
}

describe('GET /api/order/list by cursor', () => {
  it('answers pageSize alone with the first rows, the total, X-Next-Cursor and a Link to the next page', async () => {
    const newest = await seed(minutes(5));
    const res = await request(t.app).get('/api/order/list?pageSize=2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: '获取成功', data: expect.any(Array) });
    expect(ids(res)).toEqual(newest.slice(0, 2));
    expect(res.headers['x-total-count']).toBe('5');
    const cursor = res.headers['x-next-cursor'];
    expect(cursor).toMatch(CURSOR);
    expect(res.headers.link).toBe(`</api/order/list?pageSize=2&cursor=${cursor}>; rel="next"`);
    expect(res.headers['access-control-expose-headers']?.split(',')).toEqual(
      expect.arrayContaining(['X-Next-Cursor', 'Link', 'X-Total-Count']),
    );
  });

  it('walks every row exactly once, in order; pages after the first carry no total, the last no cursor', async () => {
    const newest = await seed([...minutes(9), ...minutes(4)]);
    const pages = await walk(t.app, '/api/order/list?pageSize=4');
    expect(pages.flatMap(ids)).toEqual(newest);
    expect(pages.map((page) => ids(page).length)).toEqual([4, 4, 4, 1]);
    expect(pages.map((page) => page.headers['x-total-count'])).toEqual([
      '13',
      undefined,
      undefined,
      undefined,
    ]);
    expect(pages.map((page) => page.headers['x-next-cursor'] === undefined)).toEqual([
      false,
      false,
      false,
      true,
    ]);
  });

  it('gives a full last page no cursor', async () => {
    const newest = await seed(minutes(6));
    const pages = await walk(t.app, '/api/order/list?pageSize=3');
    expect(pages.map(ids)).toEqual([newest.slice(0, 3), newest.slice(3)]);
    expect(pages[1]?.headers['x-next-cursor']).toBeUndefined();
    expect(pages[1]?.headers.link).toBeUndefined();
  });

  it('orders rows of one second by id, newest first, across page boundaries', async () => {
    const newest = await seed(Array.from({ length: 10 }, () => ['2026-01-01 10:00:00', 0]));
    expect(newest).toEqual([...newest].sort((a, b) => b - a));
    const pages = await walk(t.app, '/api/order/list?pageSize=3');
    expect(pages.flatMap(ids)).toEqual(newest);
  });

  it('takes another pageSize on each page, and 20 when a cursor comes without one', async () => {
    const newest = await seed(minutes(30));
    const first = await request(t.app).get('/api/order/list?pageSize=2');
    const cursor = first.headers['x-next-cursor'];
    const bigger = await request(t.app).get(`/api/order/list?pageSize=5&cursor=${cursor}`);
    expect(ids(bigger)).toEqual(newest.slice(2, 7));
    const unsized = await request(t.app).get(`/api/order/list?cursor=${cursor}`);
    expect(ids(unsized)).toEqual(newest.slice(2, 22));
    expect(unsized.headers.link).toBe(
      `</api/order/list?cursor=${unsized.headers['x-next-cursor']}>; rel="next"`,
    );
  });

  it('walks one status, keeps it in the Link, and refuses the cursor with another status or none', async () => {
    const times = minutes(8);
    const statuses = [1, 2, 1, 0, 1, 1, 2, 1];
    const newest = await seed(times.map(([time], i) => [time, statuses[i] as number]));
    const [rows] = await t.pool.query<RowDataPacket[]>('SELECT id FROM orders WHERE status = 1');
    const ofStatus1 = newest.filter((id) => rows.some((row) => row.id === id));
    expect(ofStatus1).toHaveLength(5);
    const pages = await walk(t.app, '/api/order/list?status=1&pageSize=2');
    expect(pages.flatMap(ids)).toEqual(ofStatus1);
    expect(pages[0]?.headers.link).toMatch(/^<\/api\/order\/list\?status=1&pageSize=2&cursor=/);

    const cursor = pages[0]?.headers['x-next-cursor'];
    for (const status of ['0', '2', '']) {
      const res = await request(t.app).get(`/api/order/list?status=${status}&cursor=${cursor}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(refused(OTHER_STATUS));
    }
    const none = await request(t.app).get(`/api/order/list?cursor=${cursor}`);
    expect(none.body).toEqual(refused(OTHER_STATUS));
  });

  it('sees every row that existed when the walk began exactly once, while orders are added', async () => {
    const before = await seed(minutes(40));
    const pages: number[][] = [];
    let url: string | undefined = '/api/order/list?pageSize=6';
    while (url) {
      // New orders now, and some in the walk's own second (the seeded minute of row 20).
      await Promise.all([addOrder(t.app, serviceId), addOrder(t.app, serviceId)]);
      const id = await addOrder(t.app, serviceId);
      await execute(t.pool, "UPDATE orders SET create_time = '2026-01-01 10:20:00' WHERE id = ?", [
        id,
      ]);
      const res = await request(t.app).get(url);
      pages.push(ids(res));
      url = /^<([^>]+)>; rel="next"$/.exec(res.headers.link ?? '')?.[1];
    }
    const seen = pages.flat();
    expect(seen.filter((id) => before.includes(id))).toEqual(before);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('serves a cursor made by another instance on the same database', async () => {
    const newest = await seed(minutes(4));
    const pool: Pool = await createPlatformPool(t.settings);
    try {
      const other = createRecordedApp({ pool, logger: testLogs('other').logger });
      const first = await request(t.app).get('/api/order/list?pageSize=2');
      const cursor = first.headers['x-next-cursor'] as string;
      const next = await request(other).get(`/api/order/list?pageSize=2&cursor=${cursor}`);
      expect(ids(next)).toEqual(newest.slice(2));
    } finally {
      await pool.end();
    }
  });

  it('answers the alias /order/list alike, with a Link to the alias', async () => {
    const newest = await seed(minutes(3));
    const res = await request(t.app).get('/order/list?pageSize=2');
    expect(ids(res)).toEqual(newest.slice(0, 2));
    expect(res.headers.link).toMatch(
      /^<\/order\/list\?pageSize=2&cursor=[A-Za-z0-9_-]+>; rel="next"$/,
    );
  });

  it('keeps page working as before: no cursor, and the total', async () => {
    const newest = await seed(minutes(5));
    const res = await request(t.app).get('/api/order/list?page=2&pageSize=2');
    expect(ids(res)).toEqual(newest.slice(2, 4));
    expect(res.headers['x-total-count']).toBe('5');
    expect(res.headers['x-next-cursor']).toBeUndefined();
    expect(res.headers.link).toBeUndefined();
    const whole = await request(t.app).get('/api/order/list');
    expect(ids(whole)).toEqual(newest);
    expect(whole.headers['x-next-cursor']).toBeUndefined();
  });
});

describe('a cursor the service did not make', () => {
  let cursor: string;
  beforeEach(async () => {
    await seed(minutes(5));
    const first = await request(t.app).get('/api/order/list?pageSize=2');
    cursor = first.headers['x-next-cursor'] as string;
  });

  const flip = (text: string, at: number) =>
    text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);

  it.each([
    ['a word', () => 'abc'],
    ['a character changed in the position', () => flip(cursor, 3)],
    ['a character changed in the signature', () => flip(cursor, cursor.length - 5)],
    ['its last character changed', () => flip(cursor, cursor.length - 1)],
    ['cut short', () => cursor.slice(0, -1)],
    ['one character longer', () => `${cursor}A`],
    [
      'signed with another secret',
      () =>
        encodeCursor(Buffer.alloc(32, 7), { status: undefined, createTime: 1_767_261_600, id: 1 }),
    ],
    [
      'its spare bits set (the same bytes, written otherwise)',
      () => {
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        const last = alphabet.indexOf(cursor.at(-1) as string);
        return cursor.slice(0, -1) + alphabet[last ^ 1];
      },
    ],
    ['with characters outside base64url', () => `${cursor.slice(0, -1)}+`],
  ])('refuses %s: code 400 in the list envelope, at HTTP 200', async (_name, make) => {
    const res = await request(t.app).get(
      `/api/order/list?pageSize=2&cursor=${encodeURIComponent(make())}`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual(refused(MALFORMED));
  });

  it('refuses cursor and page together', async () => {
    const res = await request(t.app).get(`/api/order/list?page=2&cursor=${cursor}`);
    expect(res.body).toEqual(refused('cursor and page cannot be used together'));
  });
});

describe('order cursors', () => {
  const secret = Buffer.alloc(32, 1);

  it('name the position they were made for, for every status and at the ends of the ranges', () => {
    for (const position of [
      { status: undefined, createTime: 0, id: 1 },
      { status: 0, createTime: 2_147_483_647, id: 2_147_483_647 },
      { status: 2, createTime: 1_767_261_600, id: 42 },
    ]) {
      const cursor = encodeCursor(secret, position);
      expect(cursor).toMatch(CURSOR);
      expect(decodeCursor(secret, cursor)).toEqual(position);
    }
  });
});
