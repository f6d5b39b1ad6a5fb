import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { RowDataPacket } from '@svc/common';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platformDatabase } from '../src/store/database.js';
import { eventRetention } from '../src/webhooks/event-retention.js';
import { openStream } from './support/event-stream-client.js';
import {
  addMerchant,
  addOrder,
  addService,
  createTestApp,
  execute,
  ISO_TIME,
  type TestApp,
} from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ publishing: true });
});
afterAll(async () => {
  await t.close();
});

interface FeedEvent {
  id: string;
  type: string;
  createdAt: string;
  data: { id: number } & Record<string, unknown>;
}

/** The events after `after`, through the feed. */
async function eventsAfter(after: string, query = ''): Promise<FeedEvent[]> {
  const res = await request(t.app).get(`/api/events?after=${after}&limit=500${query}`);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ code: 200, message: '获取成功' });
  return res.body.data as FeedEvent[];
}

/** The id of the last event published so far (every committed one included). */
async function mark(): Promise<string> {
  await request(t.app).get('/api/events?limit=1');
  const [rows] = await t.pool.query<RowDataPacket[]>(
    "SELECT last_id FROM event_counter WHERE name = 'events'",
  );
  return String(rows[0]!.last_id);
}

const listed = async (path: string, id: number) => {
  const res = await request(t.app).get(path);
  return (res.body.data as { id: number }[]).find((row) => row.id === id);
};

describe('every change writes its event', () => {
  let since: string;
  beforeEach(async () => {
    since = await mark();
  });

  it('merchant added and approved, with the merchant as the list returns it; approving again writes none', async () => {
    const id = await addMerchant(t.app);
    const added = await listed('/api/merchant/list', id);
    await request(t.app).put(`/api/merchant/approve/${id}`).expect(200);
    await request(t.app).put(`/api/merchant/approve/${id}`).expect(200);
    const approved = await listed('/api/merchant/list', id);
    const events = await eventsAfter(since);
    expect(events.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'merchant.added', data: added },
      { type: 'merchant.approved', data: approved },
    ]);
    expect(approved).toMatchObject({ status: 1 });
    expect(Number(events[1]!.id)).toBe(Number(events[0]!.id) + 1);
    for (const event of events) expect(event.createdAt).toMatch(ISO_TIME);
  });

  it('service added, published and unpublished, with the service as the list returns it', async () => {
    const merchant = await addMerchant(t.app);
    const id = await addService(t.app, merchant);
    const added = await listed('/api/service/list', id);
    await request(t.app).put(`/api/service/publish/${id}`).expect(200);
    const published = await listed('/api/service/list', id);
    await request(t.app).put(`/api/service/publish/${id}`).expect(200);
    await request(t.app).put(`/api/service/unpublish/${id}`).expect(200);
    const unpublished = await listed('/api/service/list', id);
    const events = (await eventsAfter(since)).filter(({ type }) => type.startsWith('service.'));
    expect(events.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'service.added', data: added },
      { type: 'service.published', data: published },
      { type: 'service.unpublished', data: unpublished },
    ]);
  });

  it('order created and completed, with the order as the list returns it; completing again writes none', async () => {
    const service = await addService(t.app, await addMerchant(t.app));
    const id = await addOrder(t.app, service);
    const created = await listed('/api/order/list', id);
    await request(t.app).put(`/api/order/complete/${id}`).expect(200);
    await request(t.app).put(`/api/order/complete/${id}`).expect(200);
    const completed = await listed('/api/order/list', id);
    const events = (await eventsAfter(since)).filter(({ type }) => type.startsWith('order.'));
    expect(events.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'order.created', data: created },
      { type: 'order.completed', data: completed },
    ]);
    expect(created).toMatchObject({ status: 0, service_name: '日常保洁', price: '150.00' });
  });

  it('writes one order.completed for many completes of one order at once', async () => {
    const id = await addOrder(t.app, await addService(t.app, await addMerchant(t.app)));
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => request(t.app).put(`/api/order/complete/${id}`)),
    );
    expect(answers.map(({ status }) => status)).toEqual(Array(10).fill(200));
    const completed = (await eventsAfter(since)).filter(
      ({ type, data }) => type === 'order.completed' && data.id === id,
    );
    expect(completed).toHaveLength(1);
  });

  it('reads an event written before events named their rows (migration 008) with the data it holds', async () => {
    const merchant = { id: 424_242, name: '迁移前的商家', status: 0 };
    const order = { id: 434_343, service_id: 1, user_name: '迁移前', status: 0 };
    await execute(t.pool, 'INSERT INTO events (type, data) VALUES (?, ?), (?, ?)', [
      'merchant.added',
      JSON.stringify(merchant),
      'order.created',
      JSON.stringify(order),
    ]);
    await expect
      .poll(async () => (await eventsAfter(since)).map(({ type, data }) => ({ type, data })))
      .toEqual([
        { type: 'merchant.added', data: merchant },
        { type: 'order.created', data: order },
      ]);
  });

  it('gives data null for an event whose row is gone (deleted by SQL: no route deletes one)', async () => {
    const merchant = await addMerchant(t.app);
    const order = await addOrder(t.app, await addService(t.app, merchant));
    // The foreign keys take the merchant's service and its order with it.
    await execute(t.pool, 'DELETE FROM merchants WHERE id = ?', [merchant]);
    const events = await eventsAfter(since);
    expect(events.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'merchant.added', data: null },
      { type: 'service.added', data: null },
      { type: 'order.created', data: null },
    ]);
    expect(await listed('/api/order/list', order)).toBeUndefined();
  });

  it('writes none for a change that fails, a missing row, or a keyed replay', async () => {
    const service = await addService(t.app, await addMerchant(t.app));
    since = await mark();
    const failed = await request(t.app)
      .post('/api/order/create')
      .send({ service_id: 999_999, user_name: 'a', user_phone: '1' });
    expect(failed.body).toMatchObject({ code: 500 });
    const invalid = await request(t.app).post('/api/order/create').send({ service_id: service });
    expect(invalid.body).toMatchObject({ code: 400 });
    expect((await request(t.app).put('/api/order/complete/999999')).body.code).toBe(404);
    expect((await request(t.app).put('/api/merchant/approve/999999')).body.code).toBe(404);
    const body = { service_id: service, user_name: 'k', user_phone: '1' };
    const first = await request(t.app)
      .post('/api/order/create')
      .set('Idempotency-Key', 'e-1')
      .send(body);
    const replay = await request(t.app)
      .post('/api/order/create')
      .set('Idempotency-Key', 'e-1')
      .send(body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.id).toBe(first.body.data.id);
    const events = await eventsAfter(since);
    expect(events.map(({ type, data }) => [type, data.id])).toEqual([
      ['order.created', first.body.data.id],
    ]);
  });

  it('gives every order of shared INSERTs exactly one order.created, ids consecutive', async () => {
    const service = await addService(t.app, await addMerchant(t.app));
    since = await mark();
    const ids = await Promise.all(
      Array.from({ length: 120 }, (_x, i) => addOrder(t.app, service, { user_name: `b${i}` })),
    );
    const events = await eventsAfter(since);
    expect(events.map(({ type }) => type)).toEqual(ids.map(() => 'order.created'));
    expect(events.map(({ data }) => data.id).sort((a, b) => a - b)).toEqual(
      [...ids].sort((a, b) => a - b),
    );
    expect(events.map((event) => Number(event.id))).toEqual(
      events.map((_event, i) => Number(since) + i + 1),
    );
  });
});

describe('GET /api/events', () => {
  let since: string;
  let merchants: number[];
  beforeAll(async () => {
    since = await mark();
    merchants = [];
    for (let i = 0; i < 5; i++) merchants.push(await addMerchant(t.app));
    await request(t.app).put(`/api/merchant/approve/${merchants[0]}`);
  });

  it('pages with limit and X-Next-Cursor, oldest first', async () => {
    const res = await request(t.app).get(`/api/events?after=${since}&limit=2`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: FeedEvent) => e.data.id)).toEqual(merchants.slice(0, 2));
    expect(res.headers['x-next-cursor']).toBe(res.body.data[1].id);
    const next = await request(t.app).get(
      `/api/events?after=${res.headers['x-next-cursor']}&limit=3`,
    );
    expect(next.body.data.map((e: FeedEvent) => e.data.id)).toEqual(merchants.slice(2, 5));
  });

  it('filters by type, one or several', async () => {
    const approved = await eventsAfter(since, '&type=merchant.approved');
    expect(approved.map(({ type, data }) => [type, data.id])).toEqual([
      ['merchant.approved', merchants[0]],
    ]);
    const both = await eventsAfter(since, '&type=merchant.approved,merchant.added');
    expect(both).toHaveLength(6);
  });

  it('starts at the oldest kept event without after, 100 by default', async () => {
    const res = await request(t.app).get('/api/events');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.length).toBeLessThanOrEqual(100);
    const ids = res.body.data.map((e: FeedEvent) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('answers nothing and no X-Next-Cursor after the last event', async () => {
    const res = await request(t.app).get(`/api/events?after=${await mark()}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: '获取成功', data: [] });
    expect(res.headers['x-next-cursor']).toBeUndefined();
  });

  it('answers HTTP 400 for an after newer than any event: a cursor of another database, or from before a restore', async () => {
    const newest = Number(await mark());
    for (const after of [newest + 1, newest + 1000]) {
      const res = await request(t.app).get(`/api/events?after=${after}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        code: 400,
        message: `event id ${after} is newer than any event (the newest is ${newest}): a cursor from another database, or from before a restore`,
      });
      expect(res.headers['x-next-cursor']).toBeUndefined();
    }
  });

  it.each([
    ['after=abc', 'after must be an event id (digits)'],
    ['after=-1', 'after must be an event id (digits)'],
    ['limit=0', 'limit must be an integer from 1 to 500'],
    ['limit=501', 'limit must be an integer from 1 to 500'],
    ['limit=x', 'limit must be an integer from 1 to 500'],
    ['type=order.deleted', 'type must be one or more of'],
    ['type=', 'type must be one or more of'],
  ])('answers HTTP 400 for %s', async (query, text) => {
    const res = await request(t.app).get(`/api/events?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toContain(text);
  });

  it('answers HTTP 410 for an after older than the oldest kept event', async () => {
    const first = await mark();
    await addMerchant(t.app);
    await addMerchant(t.app);
    await mark();
    // As retention would: every event up to the first new one is gone.
    await execute(t.pool, 'DELETE FROM events WHERE id <= ?', [Number(first) + 1]);
    const gone = await request(t.app).get(`/api/events?after=${first}`);
    expect(gone.status).toBe(410);
    expect(gone.body).toEqual({
      code: 410,
      message: `the events after ${first} are no longer kept: the oldest kept is ${Number(first) + 2}`,
    });
    const kept = await request(t.app).get(`/api/events?after=${Number(first) + 1}`);
    expect(kept.status).toBe(200);
    expect(kept.body.data).toHaveLength(1);
  });
});

describe('retention', () => {
  it('deletes the events older than EVENT_RETENTION_DAYS; the feed then answers 410 for an after before them', async () => {
    const since = Number(await mark());
    for (let i = 0; i < 3; i++) await addMerchant(t.app);
    await mark();
    await execute(
      t.pool,
      'UPDATE events SET created_at = NOW(3) - INTERVAL 31 DAY WHERE id > ? AND id <= ?',
      [since, since + 2],
    );
    await execute(t.pool, 'DELETE FROM events WHERE id <= ?', [since]);
    expect(await eventRetention(platformDatabase(t.pool)).sweep(30)).toBe(2);
    expect((await request(t.app).get(`/api/events?after=${since}`)).status).toBe(410);
    const kept = await request(t.app).get(`/api/events?after=${since + 2}`);
    expect(kept.body.data.map((event: FeedEvent) => Number(event.id))).toEqual([since + 3]);
    expect(await eventRetention(platformDatabase(t.pool)).sweep(30)).toBe(0);
  });
});

describe('GET /api/events/stream', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends each event as it is published: id, event and data lines', async () => {
    const stream = await openStream(`${base}/api/events/stream`);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      const id = await addMerchant(t.app);
      const [message] = await stream.next(1);
      expect(message!.event).toBe('merchant.added');
      const event = JSON.parse(message!.data);
      expect(event).toMatchObject({ id: message!.id, type: 'merchant.added', data: { id } });
      expect(event.createdAt).toMatch(ISO_TIME);
    } finally {
      stream.close();
    }
  });

  it('writes a comment line at least every 15 s on a stream with nothing to send', async () => {
    const stream = await openStream(`${base}/api/events/stream?type=service.unpublished`);
    try {
      const keepAlives = () => stream.comments.filter((line) => line === ': keep-alive').length;
      // Two keep-alive comments, each within 15 s of the stream's opening or the one before.
      for (let seen = 0, last = Date.now(); seen < 2; ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (keepAlives() > seen) {
          seen = keepAlives();
          last = Date.now();
        }
        expect(Date.now() - last, 'ms without a comment').toBeLessThan(15_000);
      }
    } finally {
      stream.close();
    }
  }, 40_000);

  it('resumes after Last-Event-ID or after=, with the type filter', async () => {
    const since = await mark();
    const merchant = await addMerchant(t.app);
    const service = await addService(t.app, merchant);
    await request(t.app).put(`/api/service/publish/${service}`);
    const byHeader = await openStream(`${base}/api/events/stream`, { 'Last-Event-ID': since });
    const byQuery = await openStream(
      `${base}/api/events/stream?after=${since}&type=service.published`,
    );
    try {
      expect((await byHeader.next(3)).map((m) => m.event)).toEqual([
        'merchant.added',
        'service.added',
        'service.published',
      ]);
      const [published] = await byQuery.next(1);
      expect(published!.event).toBe('service.published');
      expect(JSON.parse(published!.data).data.id).toBe(service);
    } finally {
      byHeader.close();
      byQuery.close();
    }
  });

  it('sends the events published before it opened when it is the only stream (the hub idle until then)', async () => {
    const since = await mark();
    const merchant = await addMerchant(t.app);
    await addService(t.app, merchant);
    // Both published (numbered) before any stream opens: the hub's first read finds them already at its head.
    expect(await eventsAfter(since)).toHaveLength(2);
    const stream = await openStream(`${base}/api/events/stream`, { 'Last-Event-ID': since });
    try {
      expect((await stream.next(2)).map((m) => m.event)).toEqual([
        'merchant.added',
        'service.added',
      ]);
    } finally {
      stream.close();
    }
  });

  it('cuts off a reader that takes nothing while events wait, instead of buffering for it', async () => {
    const since = Number(await mark());
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /api/events/stream?after=${since} HTTP/1.1\r\nHost: x\r\n\r\n`);
    socket.pause();
    // 24 MB of events, more than any socket buffers hold: the stream must stop and cut the reader off.
    const padding = 'x'.repeat(64 * 1024);
    const rows = Array.from({ length: 16 }, () => "('merchant.added', ?)").join(', ');
    for (let i = 0; i < 24; i++) {
      await execute(
        t.pool,
        `INSERT INTO events (type, data) VALUES ${rows}`,
        Array.from({ length: 16 }, (_row, j) => `{"id":${i * 16 + j},"pad":"${padding}"}`),
      );
    }
    const cut = () => t.logs.entries().some((entry) => String(entry.msg).includes('cut off'));
    await expect.poll(cut, { timeout: 30_000, interval: 500 }).toBe(true);
    socket.destroy();
  }, 40_000);

  it('ends with one event: error message for a Last-Event-ID or after newer than any event', async () => {
    const newest = Number(await mark());
    const after = newest + 7;
    const ways = [
      () => openStream(`${base}/api/events/stream`, { 'Last-Event-ID': String(after) }),
      () => openStream(`${base}/api/events/stream?after=${after}`),
    ];
    for (const open of ways) {
      const stream = await open();
      try {
        expect(stream.status).toBe(200);
        expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
        expect(await stream.next(1)).toEqual([
          {
            event: 'error',
            data: JSON.stringify({
              code: 400,
              message: `event id ${after} is newer than any event (the newest is ${newest}): a cursor from another database, or from before a restore`,
            }),
          },
        ]);
        await stream.ended;
      } finally {
        stream.close();
      }
    }
  });

  it('answers HTTP 400 for a bad Last-Event-ID or type, before any stream', async () => {
    const res = await request(t.app).get('/api/events/stream').set('Last-Event-ID', 'x');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: 'Last-Event-ID must be an event id (digits)' });
    expect((await request(t.app).get('/api/events/stream?type=x')).status).toBe(400);
  });
});

describe('administrator routes', () => {
  let secured: TestApp;
  beforeAll(async () => {
    secured = await createTestApp({ adminToken: 'a-token-of-16-chars-or-more' });
  });
  afterAll(async () => {
    await secured.close();
  });

  it('take PLATFORM_ADMIN_TOKEN when it is set: HTTP 401 without it', async () => {
    for (const path of ['/api/events', '/api/events/stream']) {
      const res = await request(secured.app).get(path);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 401, message: 'administrator token required' });
    }
    const ok = await request(secured.app)
      .get('/api/events')
      .set('Authorization', 'Bearer a-token-of-16-chars-or-more');
    expect(ok.status).toBe(200);
  });
});
