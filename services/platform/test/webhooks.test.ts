import type { ResultSetHeader } from '@svc/common';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newSecret } from '../src/webhooks/signature.js';
import { startDeliverer } from './support/deliverer.js';
import {
  addMerchant,
  addOrder,
  addService,
  createTestApp,
  ISO_TIME,
  type TestApp,
} from './support/test-app.js';
import { startReceiver } from './support/webhook-receiver.js';

let t: TestApp;
const stops: (() => Promise<void>)[] = [];
beforeAll(async () => {
  t = await createTestApp({ publishing: true, webhooksAllowPrivate: true });
});
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});
afterAll(async () => {
  await t.close();
});

/** A deliverer of its own, as one instance of the platform runs it; stopped after the test. */
function deliver(retryDelays = [1, 1]) {
  const deliverer = startDeliverer(t.pool, { retryDelays });
  stops.push(deliverer.stop);
  return deliverer;
}

async function receiver(answer?: Parameters<typeof startReceiver>[0]) {
  const started = await startReceiver(answer);
  stops.push(started.close);
  return started;
}

async function addWebhook(url: string, types?: string[]) {
  const res = await request(t.app).post('/api/webhooks').send({ url, types });
  expect(res.status).toBe(200);
  stops.push(async () => {
    await request(t.app).delete(`/api/webhooks/${res.body.data.id}`);
  });
  return res.body.data as { id: number; secret: string; types: string[] | null };
}

describe('POST, GET and DELETE /api/webhooks', () => {
  it('adds a webhook and shows its secret once, lists it without, deletes it', async () => {
    const res = await request(t.app)
      .post('/api/webhooks')
      .send({ url: 'http://127.0.0.1:9/hook', types: ['order.created'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      message: '添加成功',
      data: {
        id: expect.any(Number),
        url: 'http://127.0.0.1:9/hook',
        types: ['order.created'],
        rateLimit: null,
        disabledAt: null,
        disabledReason: null,
        createdAt: expect.stringMatching(ISO_TIME),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      },
    });
    const { id, secret: _secret, ...shown } = res.body.data;
    const list = await request(t.app).get('/api/webhooks');
    expect(list.body).toEqual({ code: 200, message: '获取成功', data: [{ id, ...shown }] });
    expect((await request(t.app).delete(`/api/webhooks/${id}`)).body).toEqual({
      code: 200,
      message: '删除成功',
    });
    const again = await request(t.app).delete(`/api/webhooks/${id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ code: 404, message: `webhook ${id} does not exist` });
    expect((await request(t.app).get('/api/webhooks')).body.data).toEqual([]);
  });

  it.each([
    [{}, 'url must be an http or https URL'],
    [{ url: 'ftp://shop.example/x' }, 'url must be an http or https URL'],
    [{ url: 'not a url' }, 'url must be an http or https URL'],
    [{ url: 'https://shop.example/x', types: ['order.deleted'] }, 'types must be a list'],
    [{ url: 'https://shop.example/x', types: [] }, 'types must be a list'],
  ])('answers HTTP 400 for %j, adding nothing', async (body, text) => {
    const res = await request(t.app).post('/api/webhooks').send(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toContain(text);
    expect((await request(t.app).get('/api/webhooks')).body.data).toEqual([]);
  });

  describe('without WEBHOOK_ALLOW_PRIVATE', () => {
    let strict: TestApp;
    beforeAll(async () => {
      strict = await createTestApp();
    });
    afterAll(async () => {
      await strict.close();
    });

    it.each([
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://172.20.0.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://[fe80::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://0.0.0.0/hook',
    ])('refuses %s with HTTP 400', async (url) => {
      const res = await request(strict.app).post('/api/webhooks').send({ url });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(
        /^url must not reach a loopback, private or link-local address/,
      );
    });

    it.each([
      ['http://[::ffff:0:127.0.0.1]/hook', '::ffff:0:7f00:1'],
      ['http://[::7f00:1]/hook', '::7f00:1'],
      ['http://[::192.168.1.1]/hook', '::c0a8:101'],
      ['http://[64:ff9b::10.0.0.1]/hook', '64:ff9b::a00:1'],
      ['http://[2002:c0a8:101::1]/hook', '2002:c0a8:101::1'],
      ['http://[fec0::1]/hook', 'fec0::1'],
      ['http://[fd00::1]/hook', 'fd00::1'],
      ['http://[ff02::1]/hook', 'ff02::1'],
      ['http://[2001:db8::1]/hook', '2001:db8::1'],
      ['http://100.64.0.1/hook', '100.64.0.1'],
      ['http://198.18.0.1/hook', '198.18.0.1'],
      ['http://192.0.2.1/hook', '192.0.2.1'],
    ])(
      'refuses %s, an IPv6 form of a private address or a special-purpose one, naming %s',
      async (url, address) => {
        const before = (await request(strict.app).get('/api/webhooks')).body.data;
        const res = await request(strict.app).post('/api/webhooks').send({ url });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          code: 400,
          message: `url must not reach a loopback, private or link-local address (${address}); WEBHOOK_ALLOW_PRIVATE=true allows it`,
        });
        expect((await request(strict.app).get('/api/webhooks')).body.data).toEqual(before);
      },
    );

    it('takes a public address', async () => {
      const res = await request(strict.app)
        .post('/api/webhooks')
        .send({ url: 'https://93.184.215.14/hook' });
      expect(res.status).toBe(200);
    });
  });
});

describe('deliveries', () => {
  it('POSTs each event signed as Standard Webhooks has it, webhook-id the event id', async () => {
    const live = await receiver();
    const { secret } = await addWebhook(live.url);
    deliver();
    const merchant = await addMerchant(t.app);
    await expect.poll(() => live.received.length, { timeout: 5000 }).toBe(1);
    const [got] = live.received;
    const event = new Webhook(secret).verify(got!.body, {
      'webhook-id': got!.headers['webhook-id'] as string,
      'webhook-timestamp': got!.headers['webhook-timestamp'] as string,
      'webhook-signature': got!.headers['webhook-signature'] as string,
    }) as { id: string; type: string; data: { id: number } };
    expect(event).toMatchObject({ type: 'merchant.added', data: { id: merchant } });
    expect(got!.headers['webhook-id']).toBe(event.id);
    expect(got!.headers['content-type']).toBe('application/json');
    const feed = await request(t.app).get(`/api/events?after=${Number(event.id) - 1}&limit=1`);
    expect(JSON.parse(got!.body)).toEqual(feed.body.data[0]);
    expect(Math.abs(Number(got!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('sends only the types a webhook asked for', async () => {
    const live = await receiver();
    await addWebhook(live.url, ['order.created']);
    deliver();
    const service = await addService(t.app, await addMerchant(t.app));
    const order = await addOrder(t.app, service);
    await expect.poll(() => live.received.length, { timeout: 5000 }).toBe(1);
    expect(JSON.parse(live.received[0]!.body)).toMatchObject({
      type: 'order.created',
      data: { id: order },
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(live.received).toHaveLength(1);
  });

  it('retries a receiver that fails with the same webhook-id, until it answers 2xx', async () => {
    let calls = 0;
    const flaky = await receiver(() => (++calls <= 2 ? 500 : 204));
    const { id } = await addWebhook(flaky.url);
    deliver([1, 1, 1]);
    await addMerchant(t.app);
    await expect.poll(() => flaky.received.length, { timeout: 8000 }).toBe(3);
    const ids = flaky.received.map(({ headers }) => headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    expect(flaky.received[1]!.at - flaky.received[0]!.at).toBeGreaterThanOrEqual(900);
    await expect
      .poll(
        async () =>
          (await request(t.app).get(`/api/webhooks/${id}/deliveries`)).body.data[0]?.status,
      )
      .toBe('delivered');
    const [delivery] = (await request(t.app).get(`/api/webhooks/${id}/deliveries`)).body.data;
    expect(delivery).toMatchObject({
      eventId: ids[0],
      eventType: 'merchant.added',
      attempts: 3,
      responseStatus: 204,
    });
  });

  it('marks a delivery failed once its retries are spent, lists it, and sends it again on retry', async () => {
    let up = false;
    const down = await receiver(() => (up ? 200 : 503));
    const { id } = await addWebhook(down.url);
    deliver([1]);
    await addMerchant(t.app);
    await expect
      .poll(
        async () =>
          (await request(t.app).get(`/api/webhooks/${id}/deliveries?status=failed`)).body.data
            .length,
        {
          timeout: 8000,
        },
      )
      .toBe(1);
    const failed = await request(t.app).get(`/api/webhooks/${id}/deliveries?status=failed`);
    expect(failed.body.data[0]).toMatchObject({
      status: 'failed',
      attempts: 2,
      responseStatus: 503,
      error: 'HTTP 503',
    });
    expect(down.received).toHaveLength(2);
    up = true;
    const retried = await request(t.app).post(`/api/webhooks/${id}/retry`);
    expect(retried.body).toEqual({ code: 200, message: '已重新发送', data: { retried: 1 } });
    await expect.poll(() => down.received.length, { timeout: 5000 }).toBe(3);
    expect(new Set(down.received.map(({ headers }) => headers['webhook-id'])).size).toBe(1);
    await expect
      .poll(
        async () =>
          (await request(t.app).get(`/api/webhooks/${id}/deliveries?status=delivered`)).body.data
            .length,
      )
      .toBe(1);
  });

  it('keeps delivering to a live receiver while another hangs or refuses', async () => {
    const hanging = await receiver(() => 'hang');
    const refused = await receiver();
    await refused.close();
    const live = await receiver();
    await addWebhook(hanging.url);
    await addWebhook(refused.url);
    await addWebhook(live.url);
    deliver();
    const started = Date.now();
    for (let i = 0; i < 40; i++) await addMerchant(t.app);
    await expect.poll(() => live.received.length, { timeout: 5000 }).toBe(40);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(hanging.received.length).toBeGreaterThan(0);
  });

  it('never makes one attempt twice when two instances deliver', async () => {
    const live = await receiver();
    await addWebhook(live.url);
    deliver();
    deliver();
    const service = await addService(t.app, await addMerchant(t.app));
    await Promise.all(
      Array.from({ length: 200 }, (_x, i) => addOrder(t.app, service, { user_name: `w${i}` })),
    );
    await expect.poll(() => live.received.length, { timeout: 10_000 }).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = live.received.map(({ headers }) => headers['webhook-id']);
    expect(new Set(ids).size).toBe(202);
    expect(ids).toHaveLength(202);
  });

  it('answers HTTP 404 for the deliveries or the retry of a webhook that does not exist, 400 for a bad id or status', async () => {
    expect((await request(t.app).get('/api/webhooks/999999/deliveries')).status).toBe(404);
    expect((await request(t.app).post('/api/webhooks/999999/retry')).status).toBe(404);
    expect((await request(t.app).get('/api/webhooks/x/deliveries')).status).toBe(400);
    const live = await receiver();
    const { id } = await addWebhook(live.url);
    const res = await request(t.app).get(`/api/webhooks/${id}/deliveries?status=lost`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: 'status must be pending, delivered or failed' });
  });
});

describe('deliveries without WEBHOOK_ALLOW_PRIVATE', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await createTestApp({ publishing: true });
  });
  afterAll(async () => {
    await strict.close();
  });

  /**
   * A webhook on a receiver of 127.0.0.1 reached by `host`, written as a row:
   * made before a check refused it, or by a server that did not check.
   */
  async function storedWebhook(host: string) {
    const live = await receiver();
    const url = live.url.replace('127.0.0.1', host);
    const [hook] = await strict.pool.query<ResultSetHeader>(
      'INSERT INTO webhooks (url, secret) VALUES (?, ?)',
      [url, newSecret()],
    );
    stops.push(async () => {
      await strict.pool.query('DELETE FROM webhooks WHERE id = ?', [hook.insertId]);
    });
    return { id: hook.insertId, live };
  }

  it.each([
    ['[::ffff:0:127.0.0.1]', '::ffff:0:7f00:1 is a private address'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1 is a private address'],
    ['[::7f00:1]', '::7f00:1 is a private address'],
    ['[64:ff9b::127.0.0.1]', '64:ff9b::7f00:1 is a private address'],
    ['[2002:7f00:1::1]', '2002:7f00:1::1 is a private address'],
    ['[fec0::1]', 'fec0::1 is a private address'],
    ['localhost', 'localhost resolves to 127.0.0.1, a private address'],
  ])('refuses %s at the attempt, a name after its DNS answer: %s', async (host, error) => {
    const { id, live } = await storedWebhook(host);
    const deliverer = startDeliverer(strict.pool, { allowPrivate: false, retryDelays: [] });
    stops.push(deliverer.stop);
    await addMerchant(strict.app);
    const deliveries = async () =>
      (await request(strict.app).get(`/api/webhooks/${id}/deliveries`)).body.data;
    await expect
      .poll(async () => (await deliveries())[0]?.status, { timeout: 5000 })
      .toBe('failed');
    expect(await deliveries()).toMatchObject([
      { status: 'failed', attempts: 1, responseStatus: null, error },
    ]);
    expect(live.received).toEqual([]);
  });
});

describe('with PLATFORM_ADMIN_TOKEN set', () => {
  it('every webhook route answers HTTP 401 without the token', async () => {
    const secured = await createTestApp({ adminToken: 'a-token-of-16-chars-or-more' });
    try {
      for (const [method, path] of [
        ['post', '/api/webhooks'],
        ['get', '/api/webhooks'],
        ['delete', '/api/webhooks/1'],
        ['get', '/api/webhooks/1/deliveries'],
        ['post', '/api/webhooks/1/retry'],
        ['patch', '/api/webhooks/1'],
        ['post', '/api/webhooks/1/rotate-secret'],
        ['post', '/api/webhooks/1/enable'],
        ['post', '/api/webhooks/1/recover'],
      ] as const) {
        const res = await request(secured.app)[method](path);
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.body).toEqual({ code: 401, message: 'administrator token required' });
      }
    } finally {
      await secured.close();
    }
  });
});
