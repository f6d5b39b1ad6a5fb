import type { RowDataPacket } from '@svc/common';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { DEMO_USER, seedDemoData } from '../src/demo-data.js';
import { suiteStores } from './support/suite-setup.js';
import { buildApp } from './support/test-app.js';

const stores = suiteStores();

const demoRows = async () => {
  const [rows] = await stores.pool.query<RowDataPacket[]>(
    'SELECT id, password FROM users WHERE username = ?',
    [DEMO_USER.username],
  );
  return rows;
};

describe('the demo data (pnpm seed)', () => {
  it('adds an account that logs in through the API, and a second run changes nothing', async () => {
    expect(await seedDemoData(stores.pool)).toBe(true);
    const { app } = buildApp(stores);
    const res = await request(app).post('/api/user/login').send(DEMO_USER);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 200, message: '登录成功' });
    const first = await demoRows();

    expect(await seedDemoData(stores.pool)).toBe(false);
    expect(await demoRows()).toEqual(first);
    expect(first).toHaveLength(1);
  });
});
