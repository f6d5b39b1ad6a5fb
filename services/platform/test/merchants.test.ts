import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  addMerchant,
  createTestApp,
  execute,
  ISO_TIME,
  merchantInput,
  rowOf,
  type TestApp,
} from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.reset();
});

describe('POST /api/merchant/add', () => {
  it('adds a merchant under review and answers its id', async () => {
    const res = await request(t.app).post('/api/merchant/add').send(merchantInput);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: '添加成功', data: { id: expect.any(Number) } });
    const row = await rowOf(t.pool, 'merchants', res.body.data.id);
    expect(row).toEqual({
      id: res.body.data.id,
      ...merchantInput,
      status: 0,
      create_time: expect.any(Date),
    });
    expect(Math.abs(row.create_time.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('ignores a status and unknown fields in the body, and trims the texts', async () => {
    const res = await request(t.app)
      .post('/api/merchant/add')
      .send({ name: '  王五维修 ', address: ' 上海 ', phone: ' 13700000000 ', status: 1, x: 'y' });
    expect(res.body).toEqual({ code: 200, message: '添加成功', data: { id: expect.any(Number) } });
    const row = await rowOf(t.pool, 'merchants', res.body.data.id);
    expect(row).toMatchObject({
      name: '王五维修',
      address: '上海',
      phone: '13700000000',
      status: 0,
    });
  });

  it('accepts texts at their column length, counted in characters', async () => {
    const body = { name: '😀'.repeat(100), address: '路'.repeat(200), phone: '1'.repeat(20) };
    const res = await request(t.app).post('/api/merchant/add').send(body);
    expect(res.body.code).toBe(200);
    expect(await rowOf(t.pool, 'merchants', res.body.data.id)).toMatchObject(body);
  });

  it.each([
    [{}, 'name is required; address is required; phone is required'],
    [{ ...merchantInput, name: undefined }, 'name is required'],
    [{ ...merchantInput, name: '   ' }, 'name is required'],
    [{ ...merchantInput, address: null }, 'address is required'],
    [{ ...merchantInput, phone: '' }, 'phone is required'],
    [{ ...merchantInput, name: 42 }, 'name must be a string'],
    [{ ...merchantInput, phone: 13800138000 }, 'phone must be a string'],
    [{ ...merchantInput, address: ['a'] }, 'address must be a string'],
    [{ ...merchantInput, name: { first: 'a' } }, 'name must be a string'],
    [{ ...merchantInput, name: true }, 'name must be a string'],
    [{ ...merchantInput, name: 'n'.repeat(101) }, 'name must be at most 100 characters'],
    [{ ...merchantInput, address: '路'.repeat(201) }, 'address must be at most 200 characters'],
    [{ ...merchantInput, phone: '1'.repeat(21) }, 'phone must be at most 20 characters'],
    [
      { name: 'n'.repeat(101), address: 7, phone: '' },
      'name must be at most 100 characters; address must be a string; phone is required',
    ],
  ])('rejects %j with code 400 "%s", writing nothing', async (body, text) => {
    const res = await request(t.app).post('/api/merchant/add').send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 400, message: '添加失败', data: text });
    expect((await t.counts()).merchants).toBe(0);
  });
});

describe('GET /api/merchant/list', () => {
  it('answers an empty list', async () => {
    const res = await request(t.app).get('/api/merchant/list');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: '获取成功', data: [] });
    expect(res.headers['x-total-count']).toBeUndefined();
  });

  it('lists every merchant with every field, in id order', async () => {
    const first = await addMerchant(t.app, { name: '甲' });
    const second = await addMerchant(t.app, { name: '乙' });
    await execute(t.pool, 'UPDATE merchants SET status = 1 WHERE id = ?', [second]);
    const res = await request(t.app).get('/api/merchant/list');
    expect(res.body).toEqual({
      code: 200,
      message: '获取成功',
      data: [
        { id: first, ...merchantInput, name: '甲', status: 0, create_time: expect.any(String) },
        { id: second, ...merchantInput, name: '乙', status: 1, create_time: expect.any(String) },
      ],
    });
    const stored = await rowOf(t.pool, 'merchants', first);
    expect(res.body.data[0].create_time).toMatch(ISO_TIME);
    expect(res.body.data[0].create_time).toBe(stored.create_time.toISOString());
  });

  it('writes every character of every text as JSON carries it, as the page does', async () => {
    const awkward = '引号"反斜杠\\换行\n制表\t控制\u0001\u001f表情😀</script>&\'\u2028/';
    await addMerchant(t.app, { name: awkward, address: awkward, phone: '"\\\n😀' });
    await addMerchant(t.app);
    const whole = await request(t.app).get('/api/merchant/list');
    const page = await request(t.app).get('/api/merchant/list?page=1&pageSize=100');
    expect(whole.headers['content-type']).toBe(page.headers['content-type']);
    expect(whole.body).toEqual(page.body);
    expect(whole.body.data[0]).toMatchObject({
      name: awkward,
      address: awkward,
      phone: '"\\\n😀',
    });
    expect(whole.body.data).toHaveLength(2);
  });

  it('answers a page with the total in X-Total-Count', async () => {
    const ids = [];
    for (let i = 1; i <= 5; i++) ids.push(await addMerchant(t.app, { name: `m${i}` }));
    const res = await request(t.app).get('/api/merchant/list?page=2&pageSize=2');
    expect(res.body).toMatchObject({ code: 200, message: '获取成功' });
    expect(res.body.data.map((m: { id: number }) => m.id)).toEqual(ids.slice(2, 4));
    expect(res.headers['x-total-count']).toBe('5');
    expect(res.headers['access-control-expose-headers']?.split(',')).toContain('X-Total-Count');

    const last = await request(t.app).get('/api/merchant/list?page=3&pageSize=2');
    expect(last.body.data.map((m: { id: number }) => m.id)).toEqual(ids.slice(4));
    const beyond = await request(t.app).get('/api/merchant/list?page=9&pageSize=2');
    expect(beyond.body).toEqual({ code: 200, message: '获取成功', data: [] });
    expect(beyond.headers['x-total-count']).toBe('5');
    const defaults = await request(t.app).get('/api/merchant/list?page=1');
    expect(defaults.body.data).toHaveLength(5);
    expect(defaults.headers['x-total-count']).toBe('5');
  });

  it.each([
    ['page=0', 'page must be a positive integer'],
    ['page=-1', 'page must be a positive integer'],
    ['page=abc', 'page must be a positive integer'],
    ['page=1.5', 'page must be a positive integer'],
    ['pageSize=0', 'pageSize must be an integer from 1 to 100'],
    ['pageSize=101', 'pageSize must be an integer from 1 to 100'],
    ['pageSize=1e2', 'pageSize must be an integer from 1 to 100'],
    [
      'page=x&pageSize=1000',
      'page must be a positive integer; pageSize must be an integer from 1 to 100',
    ],
  ])('rejects ?%s with code 400 naming the parameter', async (query, text) => {
    const res = await request(t.app).get(`/api/merchant/list?${query}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 400, message: '获取失败', error: text });
  });
});

describe('PUT /api/merchant/approve/:id', () => {
  it('approves a merchant under review', async () => {
    const id = await addMerchant(t.app);
    const other = await addMerchant(t.app);
    const res = await request(t.app).put(`/api/merchant/approve/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, msg: '商家审核通过!' });
    expect((await rowOf(t.pool, 'merchants', id)).status).toBe(1);
    expect((await rowOf(t.pool, 'merchants', other)).status).toBe(0);
  });

  it('answers 200 again for an approved merchant: the row exists, so it is not a 404', async () => {
    const id = await addMerchant(t.app);
    await request(t.app).put(`/api/merchant/approve/${id}`);
    const res = await request(t.app).put(`/api/merchant/approve/${id}`);
    expect(res.body).toEqual({ code: 200, msg: '商家审核通过!' });
    expect((await rowOf(t.pool, 'merchants', id)).status).toBe(1);
  });

  it('answers code 404 when no merchant has the id, and logs it with the request id', async () => {
    const id = await addMerchant(t.app);
    const res = await request(t.app)
      .put(`/api/merchant/approve/${id + 1000}`)
      .set('X-Request-Id', 'approve-missing');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 404, msg: '商家不存在' });
    expect((await rowOf(t.pool, 'merchants', id)).status).toBe(0);
    const logged = t.logs.entries().find((line) => line.reqId === 'approve-missing');
    expect(logged).toMatchObject({
      msg: 'request rejected',
      failure: { status: 404, detail: `merchant ${id + 1000} does not exist` },
    });
  });

  it.each(['abc', '0', '-1', '1.5', '99999999999', '2147483648', '1e3', '%201'])(
    'rejects the id %s with code 400',
    async (id) => {
      const existing = await addMerchant(t.app);
      const res = await request(t.app).put(`/api/merchant/approve/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        code: 400,
        msg: '服务器出错',
        error: 'id must be a positive integer',
      });
      expect((await rowOf(t.pool, 'merchants', existing)).status).toBe(0);
    },
  );
});
