import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  addMerchant,
  addOrder,
  addService,
  createTestApp,
  execute,
  ISO_TIME,
  orderInput,
  rowOf,
  type TestApp,
} from './support/test-app.js';

let t: TestApp;
let merchantId: number;
let serviceId: number;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.reset();
  merchantId = await addMerchant(t.app, { name: '张三家政' });
  serviceId = await addService(t.app, merchantId, { name: '日常保洁', price: '150', stock: 5 });
});

const ids = (body: { data: { id: number }[] }) => body.data.map((row) => row.id);

/** Orders with chosen times and statuses, for ordering and filters. */
async function seedOrders(rows: [time: string, status: number][]): Promise<number[]> {
  const created = [];
  for (const [time, status] of rows) {
    const id = await addOrder(t.app, serviceId);
    await execute(t.pool, 'UPDATE orders SET create_time = ?, status = ? WHERE id = ?', [
      time,
      status,
      id,
    ]);
    created.push(id);
  }
  return created;
}

const CREATE_PATHS = ['/api/order/create', '/api/order/add', '/order/add'];
const LIST_PATHS = ['/api/order/list', '/order/list'];

describe.each(CREATE_PATHS)('POST %s', (path) => {
  it('creates an awaiting-payment order and leaves the stock alone', async () => {
    const res = await request(t.app)
      .post(path)
      .send({ ...orderInput, service_id: serviceId, status: 1, price: '1.00' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      message: '创建定单成功',
      data: { id: expect.any(Number) },
    });
    expect(await rowOf(t.pool, 'orders', res.body.data.id)).toEqual({
      id: res.body.data.id,
      service_id: serviceId,
      user_name: '李四',
      user_phone: '13912345678',
      create_time: expect.any(Date),
      status: 0,
    });
    expect(await rowOf(t.pool, 'services', serviceId)).toMatchObject({ stock: 5, price: '150.00' });
  });

  it('accepts service_id as a digit string', async () => {
    const res = await request(t.app)
      .post(path)
      .send({ ...orderInput, service_id: String(serviceId) });
    expect(res.body.code).toBe(200);
    expect((await rowOf(t.pool, 'orders', res.body.data.id)).service_id).toBe(serviceId);
  });

  it('answers code 500 naming the service when no service has the id, and writes nothing', async () => {
    const res = await request(t.app)
      .post(path)
      .send({ ...orderInput, service_id: serviceId + 1000 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 500,
      message: '创建定单失败',
      error: `service ${serviceId + 1000} does not exist`,
    });
    expect((await t.counts()).orders).toBe(0);
  });

  it.each([
    [{ service_id: undefined }, 'service_id is required'],
    [{ service_id: 'x1' }, 'service_id must be a positive integer'],
    [{ service_id: -1 }, 'service_id must be a positive integer'],
    [{ service_id: 1e12 }, 'service_id must be a positive integer'],
    [{ user_name: undefined }, 'user_name is required'],
    [{ user_name: ' ' }, 'user_name is required'],
    [{ user_name: 7 }, 'user_name must be a string'],
    [{ user_name: '名'.repeat(51) }, 'user_name must be at most 50 characters'],
    [{ user_phone: null }, 'user_phone is required'],
    [{ user_phone: 13912345678 }, 'user_phone must be a string'],
    [{ user_phone: '1'.repeat(21) }, 'user_phone must be at most 20 characters'],
    [
      { service_id: null, user_name: null, user_phone: null },
      'service_id is required; user_name is required; user_phone is required',
    ],
  ])('rejects %j with code 400 "%s", writing nothing', async (change, text) => {
    const res = await request(t.app)
      .post(path)
      .send({ ...orderInput, service_id: serviceId, ...change });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 400, message: '创建定单失败', error: text });
    expect((await t.counts()).orders).toBe(0);
  });
});

describe.each(LIST_PATHS)('GET %s', (path) => {
  it('answers an empty list', async () => {
    const res = await request(t.app).get(path);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: '获取成功', data: [] });
  });

  it('lists orders with the service name (twice), price and merchant name', async () => {
    const id = await addOrder(t.app, serviceId);
    const res = await request(t.app).get(path);
    expect(res.body).toEqual({
      code: 200,
      message: '获取成功',
      data: [
        {
          id,
          service_id: serviceId,
          user_name: '李四',
          user_phone: '13912345678',
          create_time: expect.stringMatching(ISO_TIME),
          status: 0,
          server_name: '日常保洁',
          service_name: '日常保洁',
          price: '150.00',
          merchant_name: '张三家政',
        },
      ],
    });
    const stored = await rowOf(t.pool, 'orders', id);
    expect(res.body.data[0].create_time).toBe(stored.create_time.toISOString());
  });

  it("shows the service's price as it is now", async () => {
    await addOrder(t.app, serviceId);
    await execute(t.pool, 'UPDATE services SET price = ? WHERE id = ?', ['99.90', serviceId]);
    expect((await request(t.app).get(path)).body.data[0].price).toBe('99.90');
  });

  it('lists newest first, and by id within one second', async () => {
    const [old, newest, middleA, middleB] = await seedOrders([
      ['2024-01-01 08:00:00', 0],
      ['2024-03-01 08:00:00', 0],
      ['2024-02-01 08:00:00', 1],
      ['2024-02-01 08:00:00', 2],
    ]);
    expect(ids((await request(t.app).get(path)).body)).toEqual([newest, middleB, middleA, old]);
  });

  it('filters by status 0, 1 or 2; an empty or absent status lists all', async () => {
    const [a, b, c, d] = await seedOrders([
      ['2024-01-01 08:00:00', 0],
      ['2024-01-02 08:00:00', 1],
      ['2024-01-03 08:00:00', 2],
      ['2024-01-04 08:00:00', 0],
    ]);
    const list = async (query: string) => ids((await request(t.app).get(`${path}${query}`)).body);
    expect(await list('?status=0')).toEqual([d, a]);
    expect(await list('?status=1')).toEqual([b]);
    expect(await list('?status=2')).toEqual([c]);
    expect(await list('?status=')).toEqual([d, c, b, a]);
    expect(await list('')).toEqual([d, c, b, a]);
  });

  it('answers a page, filtered or not, with the total in X-Total-Count', async () => {
    const [a, b, c, d, e] = await seedOrders([
      ['2024-01-01 08:00:00', 0],
      ['2024-01-02 08:00:00', 1],
      ['2024-01-03 08:00:00', 0],
      ['2024-01-04 08:00:00', 0],
      ['2024-01-05 08:00:00', 1],
    ]);
    const page = await request(t.app).get(`${path}?page=2&pageSize=2`);
    expect(page.body).toMatchObject({ code: 200, message: '获取成功' });
    expect(ids(page.body)).toEqual([c, b]);
    expect(page.headers['x-total-count']).toBe('5');

    const filtered = await request(t.app).get(`${path}?status=0&page=1&pageSize=2`);
    expect(ids(filtered.body)).toEqual([d, c]);
    expect(filtered.headers['x-total-count']).toBe('3');

    const rest = await request(t.app).get(`${path}?status=0&page=2&pageSize=2`);
    expect(ids(rest.body)).toEqual([a]);
    const sized = await request(t.app).get(`${path}?status=&pageSize=1`);
    expect(ids(sized.body)).toEqual([e]);
    expect(sized.headers['x-total-count']).toBe('5');
  });

  it.each([
    ['status=3', 'status must be 0, 1 or 2'],
    ['status=-1', 'status must be 0, 1 or 2'],
    ['status=abc', 'status must be 0, 1 or 2'],
    ['status=01', 'status must be 0, 1 or 2'],
    ['status=%201', 'status must be 0, 1 or 2'],
    ['status=0&status=1', 'status must be 0, 1 or 2'],
    ['pageSize=101', 'pageSize must be an integer from 1 to 100'],
    ['page=0&status=9', 'status must be 0, 1 or 2; page must be a positive integer'],
  ])('rejects ?%s with code 400 "%s"', async (query, text) => {
    await addOrder(t.app, serviceId);
    const res = await request(t.app).get(`${path}?${query}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 400, message: '获取失败', error: text });
  });
});

describe('cascades', () => {
  it('deleting a service deletes its orders; deleting a merchant deletes its services and their orders', async () => {
    const otherService = await addService(t.app, merchantId);
    await addOrder(t.app, serviceId);
    await addOrder(t.app, otherService);
    await execute(t.pool, 'DELETE FROM services WHERE id = ?', [serviceId]);
    expect(await t.counts()).toEqual({ merchants: 1, services: 1, orders: 1 });
    await execute(t.pool, 'DELETE FROM merchants WHERE id = ?', [merchantId]);
    expect(await t.counts()).toEqual({ merchants: 0, services: 0, orders: 0 });
  });
});

describe('GET /api/order/list as a whole list', () => {
  it('writes every character of a name as JSON carries it, as the page does', async () => {
    const awkward = '引号"反斜杠\\换行\n制表\t控制\u0001\u001f表情😀</script>&\'';
    await request(t.app)
      .post('/api/order/create')
      .send({ service_id: serviceId, user_name: awkward, user_phone: '+86 (10) "1"' });
    const whole = await request(t.app).get('/api/order/list');
    const page = await request(t.app).get('/api/order/list?page=1&pageSize=100');
    expect(whole.body.data).toHaveLength(1);
    expect(whole.body.data[0]).toMatchObject({ user_name: awkward, user_phone: '+86 (10) "1"' });
    expect(whole.body).toEqual(page.body);
  });
});

describe('PUT /api/order/complete/:id', () => {
  it('completes an order (status 1) and leaves the others', async () => {
    const id = await addOrder(t.app, serviceId);
    const other = await addOrder(t.app, serviceId);
    const res = await request(t.app).put(`/api/order/complete/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, msg: '订单已完成!' });
    expect((await rowOf(t.pool, 'orders', id)).status).toBe(1);
    expect((await rowOf(t.pool, 'orders', other)).status).toBe(0);
    const completed = await request(t.app).get('/api/order/list?status=1');
    expect(ids(completed.body)).toEqual([id]);
  });

  it('answers 200 again for a completed order, as approving an approved merchant does', async () => {
    const id = await addOrder(t.app, serviceId);
    await request(t.app).put(`/api/order/complete/${id}`);
    const res = await request(t.app).put(`/api/order/complete/${id}`);
    expect(res.body).toEqual({ code: 200, msg: '订单已完成!' });
    expect((await rowOf(t.pool, 'orders', id)).status).toBe(1);
  });

  it('answers code 404 when no order has the id, and changes nothing', async () => {
    const id = await addOrder(t.app, serviceId);
    const res = await request(t.app).put(`/api/order/complete/${id + 1000}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 404, msg: '订单不存在' });
    expect((await rowOf(t.pool, 'orders', id)).status).toBe(0);
  });

  it.each(['abc', '0', '-1', '1.5', '2147483648', '%201'])(
    'rejects the id %s with code 400',
    async (id) => {
      const existing = await addOrder(t.app, serviceId);
      const res = await request(t.app).put(`/api/order/complete/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        code: 400,
        msg: '服务器出错',
        error: 'id must be a positive integer',
      });
      expect((await rowOf(t.pool, 'orders', existing)).status).toBe(0);
    },
  );

  it('answers 405 with Allow for another method on the path', async () => {
    const res = await request(t.app).post('/api/order/complete/1');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('PUT');
  });
});
