import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  addMerchant,
  addService,
  createTestApp,
  execute,
  ISO_TIME,
  rowOf,
  serviceInput,
  type TestApp,
} from './support/test-app.js';

let t: TestApp;
let merchantId: number;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.reset();
  merchantId = await addMerchant(t.app, { name: '张三家政' });
});

const ids = (body: { data: { id: number }[] }) => body.data.map((row) => row.id);

describe('POST /api/service/add', () => {
  it('adds a service off the shelf and answers its id', async () => {
    const res = await request(t.app)
      .post('/api/service/add')
      .send({ ...serviceInput, merchant_id: merchantId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      message: '新增服务成功',
      data: { id: expect.any(Number) },
    });
    expect(await rowOf(t.pool, 'services', res.body.data.id)).toEqual({
      id: res.body.data.id,
      merchant_id: merchantId,
      name: '日常保洁',
      price: '150.00',
      category: '保洁',
      image_url: 'https://img.example/clean.png',
      stock: 5,
      status: 0,
      create_time: expect.any(Date),
    });
    expect((await t.counts()).services).toBe(1);
  });

  it.each([
    ['omitted', {}],
    ['null', { stock: null, image_url: null }],
    ['empty strings', { stock: '', image_url: '' }],
  ])('stores stock 0 and image_url NULL when they are %s', async (_how, optional) => {
    const body: Record<string, unknown> = { ...serviceInput, merchant_id: merchantId, ...optional };
    if (_how === 'omitted') {
      delete body.stock;
      delete body.image_url;
    }
    const res = await request(t.app).post('/api/service/add').send(body);
    expect(res.body).toEqual({
      code: 200,
      message: '新增服务成功',
      data: { id: expect.any(Number) },
    });
    expect(await rowOf(t.pool, 'services', res.body.data.id)).toMatchObject({
      stock: 0,
      image_url: null,
    });
  });

  it('accepts the numbers as text, as the admin form sends them, and ignores a status', async () => {
    const res = await request(t.app)
      .post('/api/service/add')
      .send({
        ...serviceInput,
        merchant_id: String(merchantId),
        price: '99.5',
        stock: '12',
        status: 1,
      });
    expect(res.body.code).toBe(200);
    expect(await rowOf(t.pool, 'services', res.body.data.id)).toMatchObject({
      merchant_id: merchantId,
      price: '99.50',
      stock: 12,
      status: 0,
    });
  });

  it.each([
    [0, '0.00'],
    [0.1, '0.10'],
    [19.99, '19.99'],
    ['0.05', '0.05'],
    ['99999999.99', '99999999.99'],
    [99999999.99, '99999999.99'],
    [12, '12.00'],
  ])('keeps the price %j exact as %s', async (price, stored) => {
    const id = await addService(t.app, merchantId, { price });
    expect((await rowOf(t.pool, 'services', id)).price).toBe(stored);
    const list = await request(t.app).get('/api/service/list');
    expect(list.body.data[0].price).toBe(stored);
  });

  it('answers code 500 naming the merchant when no merchant has the id, and writes nothing', async () => {
    const res = await request(t.app)
      .post('/api/service/add')
      .send({ ...serviceInput, merchant_id: merchantId + 1000 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 500,
      message: '新增服务失败',
      data: `merchant ${merchantId + 1000} does not exist`,
    });
    expect((await t.counts()).services).toBe(0);
  });

  it.each([
    [{ merchant_id: undefined }, 'merchant_id is required'],
    [{ merchant_id: '' }, 'merchant_id is required'],
    [{ merchant_id: 'abc' }, 'merchant_id must be a positive integer'],
    [{ merchant_id: 0 }, 'merchant_id must be a positive integer'],
    [{ merchant_id: -3 }, 'merchant_id must be a positive integer'],
    [{ merchant_id: 1.5 }, 'merchant_id must be a positive integer'],
    [{ merchant_id: 2147483648 }, 'merchant_id must be a positive integer'],
    [{ merchant_id: true }, 'merchant_id must be a positive integer'],
    [{ name: undefined }, 'name is required'],
    [{ name: 'n'.repeat(101) }, 'name must be at most 100 characters'],
    [{ price: undefined }, 'price is required'],
    [{ price: '' }, 'price is required'],
    [{ price: 'abc' }, 'price must be a non-negative number with at most 2 decimals'],
    [{ price: -1 }, 'price must be a non-negative number with at most 2 decimals'],
    [{ price: '-0.5' }, 'price must be a non-negative number with at most 2 decimals'],
    [{ price: 1.234 }, 'price must be a non-negative number with at most 2 decimals'],
    [{ price: '1.234' }, 'price must be a non-negative number with at most 2 decimals'],
    [{ price: 1e21 }, 'price must be a non-negative number with at most 2 decimals'],
    [{ price: [1] }, 'price must be a non-negative number with at most 2 decimals'],
    [{ price: 100000000 }, 'price must be at most 99999999.99'],
    [{ price: '123456789012' }, 'price must be at most 99999999.99'],
    [{ category: undefined }, 'category is required'],
    [{ category: 'c'.repeat(51) }, 'category must be at most 50 characters'],
    [{ image_url: 5 }, 'image_url must be a string'],
    [{ image_url: 'u'.repeat(201) }, 'image_url must be at most 200 characters'],
    [{ stock: -1 }, 'stock must be a non-negative integer'],
    [{ stock: '-1' }, 'stock must be a non-negative integer'],
    [{ stock: 1.5 }, 'stock must be a non-negative integer'],
    [{ stock: 'many' }, 'stock must be a non-negative integer'],
    [{ stock: 2147483648 }, 'stock must be at most 2147483647'],
    [{ stock: '99999999999999999999' }, 'stock must be at most 2147483647'],
    [
      { merchant_id: null, price: 'x', stock: -2 },
      'merchant_id is required; price must be a non-negative number with at most 2 decimals; stock must be a non-negative integer',
    ],
  ])('rejects %j with code 400 "%s", writing nothing', async (change, text) => {
    const body = { ...serviceInput, merchant_id: merchantId, ...change };
    const res = await request(t.app).post('/api/service/add').send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 400, message: '新增服务失败', data: text });
    expect((await t.counts()).services).toBe(0);
  });

  it('accepts the largest stock and the longest texts', async () => {
    const body = {
      name: '服'.repeat(100),
      category: '类'.repeat(50),
      image_url: 'u'.repeat(200),
      stock: 2147483647,
    };
    const id = await addService(t.app, merchantId, body);
    expect(await rowOf(t.pool, 'services', id)).toMatchObject(body);
  });
});

describe('GET /api/service/list', () => {
  it('lists every service with its merchant name, off-shelf ones included, in id order', async () => {
    const other = await addMerchant(t.app, { name: '李四维修' });
    const first = await addService(t.app, merchantId);
    const second = await addService(t.app, other, {
      name: '水管维修',
      price: '80.5',
      category: '维修',
      image_url: null,
      stock: null,
    });
    await request(t.app).put(`/api/service/publish/${second}`);
    const res = await request(t.app).get('/api/service/list');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      message: '获取成功',
      data: [
        {
          id: first,
          merchant_id: merchantId,
          name: '日常保洁',
          price: '150.00',
          category: '保洁',
          image_url: 'https://img.example/clean.png',
          stock: 5,
          status: 0,
          create_time: expect.stringMatching(ISO_TIME),
          merchant_name: '张三家政',
        },
        {
          id: second,
          merchant_id: other,
          name: '水管维修',
          price: '80.50',
          category: '维修',
          image_url: null,
          stock: 0,
          status: 1,
          create_time: expect.stringMatching(ISO_TIME),
          merchant_name: '李四维修',
        },
      ],
    });
  });

  it('filters by exact category; all, empty and absent list everything; t is ignored', async () => {
    const clean = await addService(t.app, merchantId, { category: '保洁' });
    const fix = await addService(t.app, merchantId, { category: '维修' });
    const home = await addService(t.app, merchantId, { category: '家政' });
    const latin = await addService(t.app, merchantId, { category: 'Garden' });
    const list = async (query: string) =>
      ids((await request(t.app).get(`/api/service/list${query}`)).body);

    expect(await list(`?category=${encodeURIComponent('维修')}&t=1732262400000`)).toEqual([fix]);
    expect(await list(`?category=${encodeURIComponent('保洁')}`)).toEqual([clean]);
    expect(await list('?category=Garden')).toEqual([latin]);
    expect(await list('?category=garden')).toEqual([]);
    expect(await list(`?category=${encodeURIComponent('维')}`)).toEqual([]);
    expect(await list('?category=nothing')).toEqual([]);
    expect(await list('?category=Garden%20')).toEqual([]);
    expect(await list(`?category=${encodeURIComponent('保洁  ')}&page=1`)).toEqual([]);
    for (const all of ['?category=all', '?category=', '', '?t=123']) {
      expect(await list(all)).toEqual([clean, fix, home, latin]);
    }
  });

  it('answers a page of a category with the total in X-Total-Count', async () => {
    const repairs = [];
    for (let i = 0; i < 5; i++)
      repairs.push(await addService(t.app, merchantId, { category: '维修' }));
    await addService(t.app, merchantId, { category: '保洁' });
    const res = await request(t.app).get(
      `/api/service/list?category=${encodeURIComponent('维修')}&page=2&pageSize=3`,
    );
    expect(res.body).toMatchObject({ code: 200, message: '获取成功' });
    expect(ids(res.body)).toEqual(repairs.slice(3));
    expect(res.headers['x-total-count']).toBe('5');
    const all = await request(t.app).get('/api/service/list?pageSize=4');
    expect(ids(all.body)).toEqual(repairs.slice(0, 4));
    expect(all.headers['x-total-count']).toBe('6');
  });

  it.each([
    ['category=a&category=b', 'category must be a single text value'],
    ['pageSize=500', 'pageSize must be an integer from 1 to 100'],
    ['page=0', 'page must be a positive integer'],
  ])('rejects ?%s with code 400 naming the parameter', async (query, text) => {
    const res = await request(t.app).get(`/api/service/list?${query}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 400, message: '获取失败', error: text });
  });

  it('writes every character of every text as JSON carries it, as the page does', async () => {
    const awkward = '引号"反斜杠\\换行\n制表\t控制\u0001\u001f表情😀</script>&\'\u2028/';
    const odd = await addMerchant(t.app, { name: awkward });
    await addService(t.app, odd, { name: awkward, category: awkward, image_url: awkward });
    await addService(t.app, merchantId, { image_url: null, price: '0.5' });
    for (const query of ['', `?category=${encodeURIComponent(awkward)}`]) {
      const whole = await request(t.app).get(`/api/service/list${query}`);
      const page = await request(t.app).get(
        `/api/service/list${query}${query ? '&' : '?'}page=1&pageSize=100`,
      );
      expect(whole.headers['content-type']).toBe(page.headers['content-type']);
      expect(whole.body).toEqual(page.body);
      expect(whole.body.data[0]).toMatchObject({
        name: awkward,
        category: awkward,
        image_url: awkward,
        merchant_name: awkward,
      });
    }
    const none = await request(t.app).get('/api/service/list?category=nothing');
    expect(none.text).toBe('{"code":200,"message":"获取成功","data":[]}');
  });

  it('shows merchant_name null for a service whose merchant row is missing', async () => {
    const id = await addService(t.app, merchantId);
    const conn = await t.pool.getConnection();
    try {
      await conn.query('SET FOREIGN_KEY_CHECKS = 0');
      await conn.query('DELETE FROM merchants WHERE id = ?', [merchantId]);
      await conn.query('SET FOREIGN_KEY_CHECKS = 1');
    } finally {
      conn.release();
    }
    const res = await request(t.app).get('/api/service/list');
    expect(res.body.data).toEqual([expect.objectContaining({ id, merchant_name: null })]);
    await execute(t.pool, 'DELETE FROM services');
  });
});

describe('PUT /api/service/publish/:id and /unpublish/:id', () => {
  it('puts a service on the shelf and takes it off again', async () => {
    const id = await addService(t.app, merchantId);
    const other = await addService(t.app, merchantId);
    const on = await request(t.app).put(`/api/service/publish/${id}`);
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ code: 200, msg: '服务上架成功!' });
    expect((await rowOf(t.pool, 'services', id)).status).toBe(1);
    expect((await rowOf(t.pool, 'services', other)).status).toBe(0);

    const off = await request(t.app).put(`/api/service/unpublish/${id}`);
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ code: 200, msg: '服务下架成功!' });
    expect((await rowOf(t.pool, 'services', id)).status).toBe(0);
  });

  it('answers 200 when the service is already in that state', async () => {
    const id = await addService(t.app, merchantId);
    expect((await request(t.app).put(`/api/service/unpublish/${id}`)).body).toEqual({
      code: 200,
      msg: '服务下架成功!',
    });
    await request(t.app).put(`/api/service/publish/${id}`);
    expect((await request(t.app).put(`/api/service/publish/${id}`)).body).toEqual({
      code: 200,
      msg: '服务上架成功!',
    });
    expect((await rowOf(t.pool, 'services', id)).status).toBe(1);
  });

  it.each(['publish', 'unpublish'])(
    '%s answers code 404 when no service has the id',
    async (op) => {
      const id = await addService(t.app, merchantId);
      const res = await request(t.app).put(`/api/service/${op}/${id + 1000}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ code: 404, msg: '服务不存在' });
      expect((await rowOf(t.pool, 'services', id)).status).toBe(0);
    },
  );

  it.each([
    ['publish', 'abc'],
    ['publish', '0'],
    ['publish', '99999999999'],
    ['unpublish', '-5'],
    ['unpublish', '2.0'],
  ])('%s rejects the id %s with code 400', async (op, id) => {
    const existing = await addService(t.app, merchantId);
    const res = await request(t.app).put(`/api/service/${op}/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 400,
      msg: '服务器出错',
      error: 'id must be a positive integer',
    });
    expect((await rowOf(t.pool, 'services', existing)).status).toBe(0);
  });
});
