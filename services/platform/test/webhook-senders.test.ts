import type { RowDataPacket } from '@svc/common';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDeliverer } from './support/deliverer.js';
import {
  addMerchant,
  addService,
  createPlatformPool,
  createRecordedApp,
  createTestApp,
  orderInput,
  type TestApp,
} from './support/test-app.js';
import { startReceiver } from './support/webhook-receiver.js';

/**
 * Webhooks as the best senders run them: secret rotation, disabling an
 * endpoint that keeps failing, recovering what it missed, and a per-endpoint
 * rate limit, each checked by a receiver that verifies with the public
 * standardwebhooks package.
 */

/** An hour's fraction small enough for a test: 1.5 s. */
const SECONDS_1_5 = 1.5 / 3600;

let t: TestApp;
let serviceId: number;
const stops: (() => Promise<void>)[] = [];
beforeAll(async () => {
  t = await createTestApp({ publishing: true, webhooksAllowPrivate: true });
  serviceId = await addService(t.app, await addMerchant(t.app));
});
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});
afterAll(async () => {
  await t.close();
});

function deliver(options: { disableAfterHours?: number } = {}) {
  const deliverer = startDeliverer(t.pool, { retryDelays: [1, 1, 1, 1, 1, 1], ...options });
  stops.push(deliverer.stop);
  return deliverer;
}

async function receiver(answer?: Parameters<typeof startReceiver>[0]) {
  const started = await startReceiver(answer);
  stops.push(started.close);
  return started;
}

async function addWebhook(app: TestApp['app'], body: object) {
  const res = await request(app).post('/api/webhooks').send(body);
  expect(res.status).toBe(200);
  stops.push(async () => {
    await request(app).delete(`/api/webhooks/${res.body.data.id}`);
  });
  return res.body.data as { id: number; secret: string };
}

async function createOrders(count: number, name = 'hooked '): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await request(t.app)
      .post('/api/order/create')
      .send({ ...orderInput, service_id: serviceId, user_name: `${name}${i}` });
    expect(res.body.code).toBe(200);
    ids.push(res.body.data.id);
  }
  return ids;
}

/** Whether the delivery verifies with `secret`, as a Standard Webhooks receiver checks it. */
function verifies(secret: string, { headers, body }: { headers: object; body: string }): boolean {
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

const webhookRow = async (id: number) =>
  (await request(t.app).get('/api/webhooks')).body.data.find(
    (hook: { id: number }) => hook.id === id,
  );

describe('POST /api/webhooks/:id/rotate-secret', () => {
  it('answers a new secret once; both sign for WEBHOOK_OLD_SECRET_HOURS, then the new one alone', async () => {
    const app = createRecordedApp({
      pool: t.pool,
      logger: t.logs.logger,
      webhooksAllowPrivate: true,
      webhookOldSecretHours: SECONDS_1_5,
    });
    const got = await receiver();
    const { id, secret: first } = await addWebhook(app, { url: got.url, types: ['order.created'] });
    deliver();

    const rotated = await request(app).post(`/api/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ code: 200, message: '密钥已更换', data: { id } });
    const second = rotated.body.data.secret as string;
    expect(second).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(second).not.toBe(first);
    expect(JSON.stringify((await request(app).get('/api/webhooks')).body)).not.toContain(second);

    await createOrders(1, 'rotated ');
    await expect.poll(() => got.received.length, { timeout: 10_000 }).toBe(1);
    const both = got.received[0]!;
    expect(String(both.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(second, both)).toBe(true);
    expect(verifies(first, both)).toBe(true);

    await new Promise((resolve) => setTimeout(resolve, 1600));
    await createOrders(1, 'after the window ');
    await expect.poll(() => got.received.length, { timeout: 10_000 }).toBe(2);
    const alone = got.received[1]!;
    expect(String(alone.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(second, alone)).toBe(true);
    expect(verifies(first, alone)).toBe(false);
  });

  it('answers 404 for a webhook that does not exist', async () => {
    const res = await request(t.app).post('/api/webhooks/999999/rotate-secret');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: 'webhook 999999 does not exist' });
  });
});

describe('a webhook that keeps failing', () => {
  it('is disabled after WEBHOOK_DISABLE_AFTER_HOURS, with a webhook.disabled event, and sent nothing more until enabled', async () => {
    let up = false;
    const got = await receiver(() => (up ? 200 : 503));
    const { id, secret } = await addWebhook(t.app, { url: got.url, types: ['order.created'] });
    deliver({ disableAfterHours: SECONDS_1_5 });
    const watcher = await receiver();
    await addWebhook(t.app, { url: watcher.url, types: ['webhook.disabled'] });

    await createOrders(2, 'failing ');
    await expect
      .poll(async () => (await webhookRow(id)).disabledAt, { timeout: 15_000 })
      .not.toBe(null);
    const disabled = await webhookRow(id);
    expect(disabled.disabledReason).toMatch(/WEBHOOK_DISABLE_AFTER_HOURS/);

    // The event, in the feed and to the webhooks that subscribe to it.
    const feed = await request(t.app).get('/api/events?after=0&limit=500&types=webhook.disabled');
    const event = feed.body.data.at(-1);
    expect(event).toMatchObject({ type: 'webhook.disabled', data: { id, url: got.url } });
    expect(event.data.disabledAt).toBe(disabled.disabledAt);
    await expect.poll(() => watcher.received.length, { timeout: 10_000 }).toBe(1);
    expect(JSON.parse(watcher.received[0]!.body)).toEqual(event);

    // Its pending deliveries are failed, listed, and nothing more is sent.
    const pending = await request(t.app).get(`/api/webhooks/${id}/deliveries?status=pending`);
    expect(pending.body.data).toEqual([]);
    const attempts = got.received.length;
    await createOrders(2, 'while disabled ');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(got.received.length).toBe(attempts);

    up = true;
    const enabled = await request(t.app).post(`/api/webhooks/${id}/enable`);
    expect(enabled.body).toMatchObject({
      code: 200,
      message: '已启用',
      data: { id, disabledAt: null, disabledReason: null },
    });
    const [after] = await createOrders(1, 'enabled ');
    await expect
      .poll(() => got.received.some((hook) => JSON.parse(hook.body).data.id === after), {
        timeout: 10_000,
      })
      .toBe(true);
    expect(verifies(secret, got.received.at(-1)!)).toBe(true);
  }, 30_000);

  it('stays enabled while some of its attempts are delivered', async () => {
    let calls = 0;
    const got = await receiver(() => (++calls % 2 === 0 ? 200 : 500));
    const { id } = await addWebhook(t.app, { url: got.url, types: ['order.created'] });
    deliver({ disableAfterHours: SECONDS_1_5 });
    for (let round = 0; round < 4; round++) {
      await createOrders(2, `half ${round} `);
      await new Promise((resolve) => setTimeout(resolve, 700));
    }
    expect((await webhookRow(id)).disabledAt).toBe(null);
  }, 30_000);
});

describe('POST /api/webhooks/:id/recover', () => {
  it('sends again every event since the time, of its types, in id order, with the same webhook-ids', async () => {
    const first = await receiver();
    const { id, secret } = await addWebhook(t.app, { url: first.url, types: ['order.created'] });
    deliver();
    await createOrders(3, 'before ');
    const [since] = await t.pool.query<RowDataPacket[]>('SELECT NOW(3) AS now');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const recent = await createOrders(4, 'recovered ');
    await expect.poll(() => first.received.length, { timeout: 10_000 }).toBe(7);
    const sent = first.received.slice(3).map((hook) => hook.headers['webhook-id']);

    const res = await request(t.app)
      .post(`/api/webhooks/${id}/recover`)
      .send({ since: new Date(since[0]!.now).toISOString() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 200, message: '正在重新发送' });

    await expect.poll(() => first.received.length, { timeout: 10_000 }).toBe(11);
    const again = first.received.slice(7);
    expect(again.map((hook) => hook.headers['webhook-id']).sort()).toEqual([...sent].sort());
    expect(again.map((hook) => JSON.parse(hook.body).data.id).sort()).toEqual(recent.sort());
    for (const hook of again) expect(verifies(secret, hook)).toBe(true);
    // Nothing more: the recovery is done.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(first.received.length).toBe(11);
  }, 30_000);

  it.each([[{}], [{ since: 'yesterday' }], [{ since: 42 }]])(
    'answers HTTP 400 for %j',
    async (body) => {
      const { id } = await addWebhook(t.app, { url: 'http://127.0.0.1:9/hook' });
      const res = await request(t.app).post(`/api/webhooks/${id}/recover`).send(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^since must be a time in ISO 8601/);
    },
  );
});

describe('a per-endpoint rateLimit', () => {
  it('lets a burst of up to the limit go at once, then the limit per second, and drops none', async () => {
    const got = await receiver();
    const { id, secret } = await addWebhook(t.app, {
      url: got.url,
      types: ['order.created'],
      rateLimit: 4,
    });
    expect((await webhookRow(id)).rateLimit).toBe(4);
    await createOrders(12, 'paced ');
    deliver();
    await expect.poll(() => got.received.length, { timeout: 15_000 }).toBe(12);
    const times = got.received.map((hook) => hook.at).sort((a, b) => a - b);
    const start = times[0]!;
    // The burst: four at once; the other eight at four a second take two seconds at least.
    expect(times[3]! - start).toBeLessThan(600);
    expect(times[11]! - start).toBeGreaterThanOrEqual(1800);
    expect(new Set(got.received.map((hook) => hook.headers['webhook-id'])).size).toBe(12);
    for (const hook of got.received) expect(verifies(secret, hook)).toBe(true);
  }, 30_000);

  it('holds across two instances: they draw on one bucket', async () => {
    const got = await receiver();
    await addWebhook(t.app, { url: got.url, types: ['order.created'], rateLimit: 3 });
    await createOrders(9, 'two paced ');
    const other = await createPlatformPool(t.settings);
    stops.push(() => other.end());
    deliver();
    const second = startDeliverer(other);
    stops.unshift(second.stop);
    await expect.poll(() => got.received.length, { timeout: 15_000 }).toBe(9);
    const times = got.received.map((hook) => hook.at).sort((a, b) => a - b);
    expect(times[8]! - times[0]!).toBeGreaterThanOrEqual(1800);
  }, 30_000);

  it('is changed by PATCH, and refused out of its range', async () => {
    const { id } = await addWebhook(t.app, { url: 'http://127.0.0.1:9/hook' });
    const set = await request(t.app).patch(`/api/webhooks/${id}`).send({ rateLimit: 7 });
    expect(set.body).toMatchObject({ code: 200, message: '修改成功', data: { id, rateLimit: 7 } });
    const unset = await request(t.app).patch(`/api/webhooks/${id}`).send({ rateLimit: null });
    expect(unset.body.data.rateLimit).toBe(null);
    for (const rateLimit of [0, -1, 1.5, 10_001, 'fast']) {
      const res = await request(t.app).patch(`/api/webhooks/${id}`).send({ rateLimit });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^rateLimit must be an integer from 1 to 10000/);
    }
    const missing = await request(t.app).patch('/api/webhooks/999999').send({ rateLimit: 1 });
    expect(missing.status).toBe(404);
  });
});
