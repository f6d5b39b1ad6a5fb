import { gzipSync } from 'node:zlib';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  addMerchant,
  addOrder,
  addService,
  createRecordedApp,
  createTestApp,
  orderInput,
  rowOf,
  serviceInput,
  type TestApp,
  testLogs,
} from './support/test-app.js';

let t: TestApp;
/** The same app and database with a 1 kB body limit. */
let small: Express;
let merchantId: number;
let serviceId: number;
beforeAll(async () => {
  t = await createTestApp();
  small = createRecordedApp({ pool: t.pool, logger: testLogs().logger, bodyLimitKb: 1 });
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.reset();
  merchantId = await addMerchant(t.app);
  serviceId = await addService(t.app, merchantId);
  await addOrder(t.app, serviceId);
});

const SEEDED = { merchants: 1, services: 1, orders: 1 };

const INJECTIONS = [
  "'; DROP TABLE merchants; --",
  "' OR '1'='1",
  '" OR ""="',
  '1; DELETE FROM orders',
  "Robert'); DROP TABLE services;--",
  "\\'; SELECT SLEEP(5); --",
  "%' UNION SELECT name, phone FROM merchants --",
  '`id`) VALUES (1); --',
  'a\u0000b',
];

const cut = (text: string, max: number) => [...text].slice(0, max).join('');

/** Every route with a body: its path, a valid body, and its failure envelope for a text. */
const POST_ROUTES = [
  {
    path: '/api/merchant/add',
    table: 'merchants',
    missing: 'name is required; address is required; phone is required',
    body: () => ({ name: 'n', address: 'a', phone: '1' }),
    failure: (code: number, text: string) => ({ code, message: '添加失败', data: text }),
  },
  {
    path: '/api/service/add',
    table: 'services',
    missing: 'merchant_id is required; name is required; price is required; category is required',
    body: () => ({ ...serviceInput, merchant_id: merchantId }),
    failure: (code: number, text: string) => ({ code, message: '新增服务失败', data: text }),
  },
  ...['/api/order/create', '/api/order/add', '/order/add'].map((path) => ({
    path,
    table: 'orders',
    missing: 'service_id is required; user_name is required; user_phone is required',
    body: () => ({ ...orderInput, service_id: serviceId }),
    failure: (code: number, text: string) => ({ code, message: '创建定单失败', error: text }),
  })),
];

const PUT_ROUTES = [
  '/api/merchant/approve/:id',
  '/api/service/publish/:id',
  '/api/service/unpublish/:id',
];

describe('SQL-injection-shaped input', () => {
  it.each(INJECTIONS)('stores %j as plain text in every text field', async (text) => {
    const merchant = await request(t.app)
      .post('/api/merchant/add')
      .send({ name: text, address: text, phone: cut(text, 20) });
    expect(merchant.body).toEqual({
      code: 200,
      message: '添加成功',
      data: { id: expect.any(Number) },
    });
    expect(await rowOf(t.pool, 'merchants', merchant.body.data.id)).toMatchObject({
      name: text,
      address: text,
      phone: cut(text, 20),
    });

    const service = await request(t.app)
      .post('/api/service/add')
      .send({
        ...serviceInput,
        merchant_id: merchantId,
        name: text,
        category: text,
        image_url: text,
      });
    expect(service.body.code).toBe(200);
    expect(await rowOf(t.pool, 'services', service.body.data.id)).toMatchObject({
      name: text,
      category: text,
      image_url: text,
    });

    const order = await request(t.app)
      .post('/api/order/create')
      .send({ service_id: serviceId, user_name: text, user_phone: cut(text, 20) });
    expect(order.body.code).toBe(200);
    expect(await rowOf(t.pool, 'orders', order.body.data.id)).toMatchObject({
      user_name: text,
      user_phone: cut(text, 20),
    });

    expect(await t.counts()).toEqual({ merchants: 2, services: 2, orders: 2 });
  });

  it.each(INJECTIONS)('matches the category %j exactly, as a value', async (text) => {
    const res = await request(t.app).get('/api/service/list').query({ category: text });
    expect(res.body).toEqual({ code: 200, message: '获取成功', data: [] });
    const id = await addService(t.app, merchantId, { category: text });
    const again = await request(t.app).get('/api/service/list').query({ category: text });
    expect(again.body.data.map((row: { id: number }) => row.id)).toEqual([id]);
  });

  it.each([
    ['/api/service/add', { merchant_id: '1 OR 1=1' }, 'merchant_id must be a positive integer'],
    [
      '/api/service/add',
      { price: '1; DROP TABLE services' },
      'price must be a non-negative number with at most 2 decimals',
    ],
    ['/api/service/add', { stock: '0) OR (1=1' }, 'stock must be a non-negative integer'],
    ['/api/order/create', { service_id: "1' OR '1'='1" }, 'service_id must be a positive integer'],
  ])('%s rejects %j in a number field, writing nothing', async (path, change, text) => {
    const route = POST_ROUTES.find((candidate) => candidate.path === path)!;
    const res = await request(t.app)
      .post(path)
      .send({ ...route.body(), ...change });
    expect(res.body).toEqual(route.failure(400, text));
    expect(await t.counts()).toEqual(SEEDED);
  });

  it.each([
    ['/api/order/list?status=0%20OR%201%3D1', 'status must be 0, 1 or 2'],
    ["/api/order/list?status=0'%20--", 'status must be 0, 1 or 2'],
    ['/api/order/list?page=1%3B%20DROP%20TABLE%20orders', 'page must be a positive integer'],
    [
      '/api/service/list?pageSize=10%20UNION%20SELECT%201',
      'pageSize must be an integer from 1 to 100',
    ],
    ['/api/merchant/list?page=(SELECT%201)', 'page must be a positive integer'],
  ])('rejects the query %s with code 400', async (path, text) => {
    const res = await request(t.app).get(path);
    expect(res.body).toEqual({ code: 400, message: '获取失败', error: text });
    expect(await t.counts()).toEqual(SEEDED);
  });

  it.each(
    PUT_ROUTES.flatMap((route) =>
      [
        '1%20OR%201%3D1',
        '1%3B%20DROP%20TABLE%20merchants',
        "1'--",
        '1)',
        '0x1',
        '%ff',
        '1%',
        '%E4%BF',
      ].map((id) => route.replace(':id', id)),
    ),
  )('rejects the path %s with code 400, changing nothing', async (path) => {
    const res = await request(t.app).put(path);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 400,
      msg: '服务器出错',
      error: 'id must be a positive integer',
    });
    expect((await rowOf(t.pool, 'merchants', merchantId)).status).toBe(0);
    expect((await rowOf(t.pool, 'services', serviceId)).status).toBe(0);
    expect(await t.counts()).toEqual(SEEDED);
  });
});

describe.each(POST_ROUTES)(
  'broken bodies on POST $path',
  ({ path, table, missing, body, failure }) => {
    it('answers malformed JSON with code 400, writing nothing', async () => {
      const res = await request(t.app)
        .post(path)
        .set('Content-Type', 'application/json')
        .send('{"name": "x",');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(failure(400, 'request body is not valid JSON'));
      expect(await t.counts()).toEqual(SEEDED);
    });

    it('answers a JSON value that is not an object with code 400', async () => {
      const array = await request(t.app).post(path).send([body()]);
      expect(array.body).toEqual(failure(400, 'request body must be a JSON object'));
      const bare = await request(t.app)
        .post(path)
        .set('Content-Type', 'application/json')
        .send('"text"');
      expect(bare.body).toEqual(failure(400, 'request body is not valid JSON'));
      expect(await t.counts()).toEqual(SEEDED);
    });

    it('answers a body over the size limit with code 413, writing nothing', async () => {
      const res = await request(small)
        .post(path)
        .send({ ...body(), padding: 'x'.repeat(2048) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(failure(413, 'request body is too large'));
      expect(await t.counts()).toEqual(SEEDED);
      expect((await request(small).post(path).send(body())).body.code).toBe(200);
    });

    it.each([
      ['text/plain', '{"name":"x","address":"y","phone":"1"}'],
      ['application/x-www-form-urlencoded', 'name=x&address=y&phone=1'],
      ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
    ])('answers Content-Type %s with code 415, writing nothing', async (type, payload) => {
      const res = await request(t.app).post(path).set('Content-Type', type).send(payload);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(failure(415, 'Content-Type must be application/json'));
      expect(await t.counts()).toEqual(SEEDED);
    });

    it('answers an unsupported charset with code 415', async () => {
      const res = await request(t.app)
        .post(path)
        .set('Content-Type', 'application/json; charset=klingon')
        .send(JSON.stringify(body()));
      expect(res.body).toEqual(failure(415, 'request body encoding is not supported'));
      expect(await t.counts()).toEqual(SEEDED);
    });

    it('reads a gzip body, and answers one that is not gzip with code 400, writing nothing', async () => {
      const gzipped = await request(t.app)
        .post(path)
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .send(body())
        .serialize((value) => gzipSync(JSON.stringify(value)) as unknown as string);
      expect(gzipped.body.code).toBe(200);
      const broken = await request(t.app)
        .post(path)
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .send(JSON.stringify(body()));
      expect(broken.status).toBe(200);
      expect(broken.body).toEqual(
        failure(400, 'request body does not decode with its Content-Encoding'),
      );
      expect(await t.counts()).toEqual({ ...SEEDED, [table]: SEEDED.merchants + 1 });
    });

    it('names every missing field when no body is sent', async () => {
      const res = await request(t.app).post(path);
      expect(res.body).toEqual(failure(400, missing));
      const empty = await request(t.app).post(path).set('Content-Type', 'application/json');
      expect(empty.body).toEqual(failure(400, missing));
      expect(await t.counts()).toEqual(SEEDED);
    });

    it('ignores __proto__ and constructor keys', async () => {
      const fields = JSON.stringify(body()).slice(1, -1);
      const res = await request(t.app)
        .post(path)
        .set('Content-Type', 'application/json')
        .send(`{${fields},"__proto__":{"status":1},"constructor":{"prototype":{"status":1}}}`);
      expect(res.body.code).toBe(200);
      expect((await rowOf(t.pool, table, res.body.data.id)).status).toBe(0);
      expect(({} as { status?: number }).status).toBeUndefined();
    });
  },
);

describe.each(PUT_ROUTES)('broken bodies on PUT %s', (route) => {
  it('answers malformed JSON with code 400, changing nothing', async () => {
    const res = await request(t.app)
      .put(route.replace(':id', String(route.includes('merchant') ? merchantId : serviceId)))
      .set('Content-Type', 'application/json')
      .send('{');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 400,
      msg: '服务器出错',
      error: 'request body is not valid JSON',
    });
    expect((await rowOf(t.pool, 'merchants', merchantId)).status).toBe(0);
    expect((await rowOf(t.pool, 'services', serviceId)).status).toBe(0);
  });
});

describe('paths and methods', () => {
  it.each([
    ['get', '/api/nothing'],
    ['get', '/api/merchant/approve'],
    ['put', '/api/merchant/approve/'],
    ['get', '/order/create'],
    ['post', '/api/order/list/extra'],
  ] as const)('%s %s answers HTTP 404 JSON', async (method, path) => {
    const res = await request(t.app)[method](path);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: 'Not Found' });
  });

  it('answers 404, not a body error, for malformed JSON sent to an unknown path', async () => {
    const res = await request(t.app)
      .post('/api/nothing')
      .set('Content-Type', 'application/json')
      .send('{');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: 'Not Found' });
  });

  it.each([
    ['get', '/api/merchant/add', 'POST'],
    ['post', '/api/merchant/list', 'GET, HEAD'],
    ['delete', '/api/merchant/approve/1', 'PUT'],
    ['get', '/api/service/publish/1', 'PUT'],
    ['post', '/api/service/unpublish/1', 'PUT'],
    ['put', '/api/service/add', 'POST'],
    ['delete', '/api/service/list', 'GET, HEAD'],
    ['get', '/api/order/create', 'POST'],
    ['get', '/order/add', 'POST'],
    ['post', '/order/list', 'GET, HEAD'],
  ] as const)('%s %s answers HTTP 405 JSON allowing %s', async (method, path, allow) => {
    const res = await request(t.app)[method](path).send({});
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ code: 405, message: 'Method Not Allowed' });
    expect(res.headers.allow).toBe(allow);
    expect(await t.counts()).toEqual(SEEDED);
    expect((await rowOf(t.pool, 'merchants', merchantId)).status).toBe(0);
  });

  it('answers a path segment that is not valid percent-encoding on its route, not before', async () => {
    const put = await request(t.app).put('/api/service/publish/%ff?x=%ff');
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      code: 400,
      msg: '服务器出错',
      error: 'id must be a positive integer',
    });
    const get = await request(t.app).get('/api/merchant/approve/%');
    expect(get.status).toBe(405);
    expect(get.body).toEqual({ code: 405, message: 'Method Not Allowed' });
    const unknown = await request(t.app).get('/api/nothing/%ff');
    expect(unknown.status).toBe(404);
    expect((await rowOf(t.pool, 'services', serviceId)).status).toBe(0);
  });

  it('answers a CORS preflight from any origin', async () => {
    const res = await request(t.app)
      .options('/api/order/create')
      .set('Origin', 'https://customer.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('echoes the request id and logs a rejected request with it', async () => {
    const res = await request(t.app)
      .post('/api/merchant/add')
      .set('X-Request-Id', 'hostile-1')
      .send({ name: 5 });
    expect(res.headers['x-request-id']).toBe('hostile-1');
    const entries = t.logs.entries().filter((line) => line.reqId === 'hostile-1');
    expect(entries.find((line) => line.msg === 'request rejected')).toMatchObject({
      level: 40,
      failure: { status: 400, detail: expect.stringContaining('name must be a string') },
    });
  });
});
