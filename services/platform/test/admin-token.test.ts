import { randomBytes } from 'node:crypto';
import { ConfigError, openApiPath } from '@svc/common';
import type { Express } from 'express';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadPlatformConfig } from '../src/config.js';
import { platformDocument, platformOperations } from '../src/openapi.js';
import { headerValue } from './support/arbitraries.js';
import {
  addMerchant,
  addOrder,
  addService,
  createRecordedApp,
  createTestApp,
  execute,
  merchantInput,
  orderInput,
  rowOf,
  serviceInput,
  type TestApp,
  testLogs,
} from './support/test-app.js';

const TOKEN = randomBytes(32).toString('hex');
const DENIED = 'administrator token required';

let t: TestApp;
/** The same database, with PLATFORM_ADMIN_TOKEN set; its logs are read below. */
let guarded: Express;
const logs = testLogs('platform-admin');
let merchantId: number;
/** Off the shelf, to publish. */
let serviceId: number;
/** On the shelf, to unpublish. */
let publishedId: number;
/** Awaiting payment, to complete. */
let orderId: number;
beforeAll(async () => {
  t = await createTestApp();
  guarded = createRecordedApp({ pool: t.pool, logger: logs.logger, adminToken: TOKEN });
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.reset();
  merchantId = await addMerchant(t.app);
  serviceId = await addService(t.app, merchantId);
  publishedId = await addService(t.app, merchantId);
  await execute(t.pool, 'UPDATE services SET status = 1 WHERE id = ?', [publishedId]);
  orderId = await addOrder(t.app, serviceId);
});

const SEEDED = { merchants: 1, services: 2, orders: 1 };

/** What the store holds: the row counts and every status. */
async function state() {
  return {
    counts: await t.counts(),
    merchant: (await rowOf(t.pool, 'merchants', merchantId)).status,
    service: (await rowOf(t.pool, 'services', serviceId)).status,
    published: (await rowOf(t.pool, 'services', publishedId)).status,
    order: (await rowOf(t.pool, 'orders', orderId)).status,
  };
}
const UNTOUCHED = { counts: SEEDED, merchant: 0, service: 0, published: 1, order: 0 };

interface AdminRoute {
  method: 'get' | 'post' | 'put';
  path: () => string;
  body?: () => object;
  denied: object;
  allowed: object;
  /** The state after the call is let through. */
  after: () => object;
}

const listed = { code: 200, message: '获取成功', data: [expect.objectContaining({ status: 0 })] };

const ADMIN_ROUTES: [string, AdminRoute][] = [
  [
    'POST /api/merchant/add',
    {
      method: 'post',
      path: () => '/api/merchant/add',
      body: () => merchantInput,
      denied: { code: 401, message: '添加失败', data: DENIED },
      allowed: { code: 200, message: '添加成功', data: { id: expect.any(Number) } },
      after: () => ({ ...UNTOUCHED, counts: { ...SEEDED, merchants: 2 } }),
    },
  ],
  [
    'PUT /api/merchant/approve/:id',
    {
      method: 'put',
      path: () => `/api/merchant/approve/${merchantId}`,
      denied: { code: 401, msg: '服务器出错', error: DENIED },
      allowed: { code: 200, msg: '商家审核通过!' },
      after: () => ({ ...UNTOUCHED, merchant: 1 }),
    },
  ],
  [
    'POST /api/service/add',
    {
      method: 'post',
      path: () => '/api/service/add',
      body: () => ({ ...serviceInput, merchant_id: merchantId }),
      denied: { code: 401, message: '新增服务失败', data: DENIED },
      allowed: { code: 200, message: '新增服务成功', data: { id: expect.any(Number) } },
      after: () => ({ ...UNTOUCHED, counts: { ...SEEDED, services: 3 } }),
    },
  ],
  [
    'PUT /api/service/publish/:id',
    {
      method: 'put',
      path: () => `/api/service/publish/${serviceId}`,
      denied: { code: 401, msg: '服务器出错', error: DENIED },
      allowed: { code: 200, msg: '服务上架成功!' },
      after: () => ({ ...UNTOUCHED, service: 1 }),
    },
  ],
  [
    'PUT /api/service/unpublish/:id',
    {
      method: 'put',
      path: () => `/api/service/unpublish/${publishedId}`,
      denied: { code: 401, msg: '服务器出错', error: DENIED },
      allowed: { code: 200, msg: '服务下架成功!' },
      after: () => ({ ...UNTOUCHED, published: 0 }),
    },
  ],
  [
    'PUT /api/order/complete/:id',
    {
      method: 'put',
      path: () => `/api/order/complete/${orderId}`,
      denied: { code: 401, msg: '服务器出错', error: DENIED },
      allowed: { code: 200, msg: '订单已完成!' },
      after: () => ({ ...UNTOUCHED, order: 1 }),
    },
  ],
  ...['/api/order/list', '/order/list'].map((path): [string, AdminRoute] => [
    `GET ${path}`,
    {
      method: 'get',
      path: () => `${path}?status=0`,
      denied: { code: 401, message: '获取失败', error: DENIED },
      allowed: listed,
      after: () => UNTOUCHED,
    },
  ]),
];

function call(app: Express, route: AdminRoute, headers: Record<string, string> = {}) {
  const req = request(app)[route.method](route.path()).set(headers);
  return route.body ? req.send(route.body()) : req;
}

/** Authorization headers (and one `token` header) that are not `Bearer <TOKEN>`. */
const WRONG: [string, Record<string, string>][] = [
  ['no header', {}],
  ['a wrong token', { Authorization: `Bearer ${randomBytes(32).toString('hex')}` }],
  ['the token with a character changed', { Authorization: `Bearer ${TOKEN.slice(0, -1)}x` }],
  ['the token cut short', { Authorization: `Bearer ${TOKEN.slice(0, 16)}` }],
  ['the token with more after it', { Authorization: `Bearer ${TOKEN}0` }],
  ['`bearer ` in lower case', { Authorization: `bearer ${TOKEN}` }],
  ['`BEARER `', { Authorization: `BEARER ${TOKEN}` }],
  ['two spaces after Bearer', { Authorization: `Bearer  ${TOKEN}` }],
  ['the token without a scheme', { Authorization: TOKEN }],
  ['Basic with the token', { Authorization: `Basic ${TOKEN}` }],
  ['the token in the `token` header', { token: TOKEN }],
  ['`Bearer <token>` in the `token` header', { token: `Bearer ${TOKEN}` }],
  ['an empty Bearer', { Authorization: 'Bearer ' }],
];

/** The routes outside the spec, answered at their HTTP status (tested in events.test.ts and webhooks.test.ts). */
const STATUS_ADMIN_ROUTES = [
  'GET /api/events',
  'GET /api/events/stream',
  'POST /api/webhooks',
  'GET /api/webhooks',
  'DELETE /api/webhooks/:id',
  'GET /api/webhooks/:id/deliveries',
  'POST /api/webhooks/:id/retry',
  'PATCH /api/webhooks/:id',
  'POST /api/webhooks/:id/rotate-secret',
  'POST /api/webhooks/:id/enable',
  'POST /api/webhooks/:id/recover',
];

describe.each(ADMIN_ROUTES)('%s with PLATFORM_ADMIN_TOKEN set', (_name, route) => {
  it.each(WRONG)('answers code 401 in its envelope to %s, changing nothing', async (_, headers) => {
    const res = await call(guarded, route, headers);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(route.denied);
    expect(await state()).toEqual(UNTOUCHED);
  });

  it('answers with the token as `Authorization: Bearer <token>`', async () => {
    const res = await call(guarded, route, { Authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(route.allowed);
    expect(await state()).toEqual(route.after());
  });
});

describe('the administrator token', () => {
  it('is asked before a broken body is read', async () => {
    const res = await request(guarded)
      .post('/api/merchant/add')
      .set('Content-Type', 'application/json')
      .send('{"name":');
    expect(res.body).toEqual({ code: 401, message: '添加失败', data: DENIED });
    const allowed = await request(guarded)
      .post('/api/merchant/add')
      .set('Authorization', `Bearer ${TOKEN}`)
      .set('Content-Type', 'application/json')
      .send('{"name":');
    expect(allowed.body).toEqual({
      code: 400,
      message: '添加失败',
      data: 'request body is not valid JSON',
    });
    expect(await state()).toEqual(UNTOUCHED);
  });

  it('lets no other Authorization or token header through', async () => {
    const right = `Bearer ${TOKEN}`;
    const near = fc.oneof(
      headerValue,
      headerValue.map((value) => `Bearer ${value}`),
      fc
        .tuple(fc.nat({ max: right.length }), fc.nat({ max: 3 }), headerValue)
        .map(([at, cut, insert]) => right.slice(0, at) + insert + right.slice(at + cut)),
    );
    await fc.assert(
      fc.asyncProperty(near, headerValue, async (authorization, token) => {
        fc.pre(authorization.replace(/^[\t ]+|[\t ]+$/g, '') !== right);
        const res = await request(guarded)
          .put(`/api/merchant/approve/${merchantId}`)
          .set({ Authorization: authorization, token });
        expect(res.body).toEqual({ code: 401, msg: '服务器出错', error: DENIED });
      }),
      { numRuns: 100 },
    );
    expect(await state()).toEqual(UNTOUCHED);
  });

  it('is never logged, while the requests that carried it are', async () => {
    const route = ADMIN_ROUTES[0]![1];
    await call(guarded, route, { Authorization: `Bearer ${TOKEN}`, 'X-Request-Id': 'admin-ok' });
    await call(guarded, route, { token: TOKEN, 'X-Request-Id': 'admin-denied' });
    await call(guarded, route, { Authorization: `bearer ${TOKEN}` });
    const entries = logs.entries();
    const done = (id: string) =>
      entries.find((entry) => (entry.req as { id?: string } | undefined)?.id === id);
    expect(done('admin-ok')).toMatchObject({
      req: { headers: { authorization: '[redacted]' } },
      res: { statusCode: 200 },
    });
    expect(done('admin-denied')).toMatchObject({ req: { headers: { token: '[redacted]' } } });
    expect(
      entries.find((entry) => entry.reqId === 'admin-denied' && entry.msg === 'request rejected'),
    ).toMatchObject({ level: 40, failure: { status: 401, detail: DENIED } });
    expect(logs.text()).not.toContain(TOKEN);
    expect(logs.text()).not.toContain(TOKEN.slice(0, 16));
  });

  it('leaves the customer routes and the merchant list open', async () => {
    const headers = { Authorization: 'Bearer wrong-wrong-wrong-wrong' };
    for (const path of ['/api/order/create', '/api/order/add', '/order/add']) {
      const res = await request(guarded)
        .post(path)
        .set(headers)
        .send({ ...orderInput, service_id: serviceId });
      expect(res.body).toEqual({
        code: 200,
        message: '创建定单成功',
        data: { id: expect.any(Number) },
      });
    }
    const services = await request(guarded).get('/api/service/list');
    expect(services.body).toMatchObject({
      code: 200,
      data: [{ id: serviceId }, { id: publishedId }],
    });
    const merchants = await request(guarded).get('/api/merchant/list').set(headers);
    expect(merchants.body).toMatchObject({ code: 200, data: [{ id: merchantId }] });
    expect(await t.counts()).toEqual({ ...SEEDED, orders: 4 });
  });

  it('is marked in the API document on exactly the routes that ask for it', async () => {
    const marked = platformOperations.filter(({ method, path }) => {
      const operation = platformDocument.paths[openApiPath(path)]?.[method] as object;
      return 'security' in operation;
    });
    expect(marked.map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort()).toEqual(
      [...ADMIN_ROUTES.map(([name]) => name), ...STATUS_ADMIN_ROUTES].sort(),
    );
    expect(platformDocument.components?.securitySchemes).toEqual({
      adminToken: {
        type: 'http',
        scheme: 'bearer',
        description: expect.stringContaining('PLATFORM_ADMIN_TOKEN'),
      },
    });
    for (const operation of platformOperations) {
      const path = operation.path.replace(':id', String(merchantId));
      const res = await request(guarded)[operation.method as 'get' | 'post' | 'put'](path);
      expect(res.body?.code === 401, `${operation.method} ${path}`).toBe(
        marked.includes(operation),
      );
    }
  });

  it('lets a browser send it: the preflight allows the Authorization header', async () => {
    const res = await request(guarded)
      .options('/api/merchant/add')
      .set('Origin', 'https://admin.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']).toBe('authorization, content-type');
  });
});

describe.each([
  ['unset', undefined],
  ['empty', ''],
])('with PLATFORM_ADMIN_TOKEN %s', (_name, adminToken) => {
  it.each(ADMIN_ROUTES)('%s is open, with or without any header', async (_route, route) => {
    const open = createRecordedApp({ pool: t.pool, logger: testLogs().logger, adminToken });
    const res = await call(open, route);
    expect(res.body).toEqual(route.allowed);
    expect(await state()).toEqual(route.after());
    const again = await call(open, route, { Authorization: 'bearer nothing' });
    expect(again.body).toMatchObject({ code: 200 });
  });
});

describe('PLATFORM_ADMIN_TOKEN in the configuration', () => {
  it('is unset when absent or empty', () => {
    expect(loadPlatformConfig({}).PLATFORM_ADMIN_TOKEN).toBeUndefined();
    expect(loadPlatformConfig({ PLATFORM_ADMIN_TOKEN: '' }).PLATFORM_ADMIN_TOKEN).toBeUndefined();
  });

  it('takes a token of 16 characters or more', () => {
    for (const token of [
      '0123456789abcdef',
      TOKEN,
      'c2VjcmV0LXNlY3JldC10b2tlbg==',
      'a-b.c_d~e+f/g-h.',
    ]) {
      expect(loadPlatformConfig({ PLATFORM_ADMIN_TOKEN: token }).PLATFORM_ADMIN_TOKEN).toBe(token);
    }
  });

  it.each([
    [
      'shorter than 16 characters',
      'short-token-15ch'.slice(0, 15),
      'expected at least 16 characters',
    ],
    [
      'with a space',
      'secret token secret',
      'expected only A-Z a-z 0-9 - . _ ~ + / and = at the end',
    ],
    ['ending in a space', `${TOKEN} `, 'expected only A-Z a-z 0-9 - . _ ~ + / and = at the end'],
    [
      'with a character beyond ASCII',
      `${TOKEN}é`,
      'expected only A-Z a-z 0-9 - . _ ~ + / and = at the end',
    ],
  ])('stops the configuration %s, without showing the token', (_, token, rule) => {
    let error: unknown;
    try {
      loadPlatformConfig({ PLATFORM_ADMIN_TOKEN: token });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `Invalid configuration:\n  PLATFORM_ADMIN_TOKEN: ${rule} (got set)`,
    );
  });
});
