import { createMysqlPool, type Pool } from '@svc/common';
import { createTestDatabase, startMariaDbServer, type TestServer } from '@svc/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordedApp, testLogs } from './support/test-app.js';

describe('health routes', () => {
  let server: TestServer;
  let pool: Pool;
  beforeAll(async () => {
    server = await startMariaDbServer();
    pool = await createMysqlPool((await createTestDatabase(server.url)).settings);
  });
  afterAll(async () => {
    await pool.end();
    await server.destroy();
  });

  it('answers /healthz, and /readyz by whether MySQL answers', async () => {
    const app = createRecordedApp({ pool, logger: testLogs().logger });
    expect((await request(app).get('/healthz')).body).toEqual({
      code: 200,
      message: 'ok',
      data: { status: 'up' },
    });
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ code: 200, message: 'ok', data: { mysql: 'up' } });

    await server.stop();
    const down = await request(app).get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      code: 503,
      message: '服务暂不可用,请稍后重试',
      data: { mysql: 'down' },
    });
    expect((await request(app).get('/healthz')).status).toBe(200);

    await server.start();
    await expect
      .poll(async () => (await request(app).get('/readyz')).status, { timeout: 10_000 })
      .toBe(200);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await request(createRecordedApp({ pool, logger: testLogs().logger })).get(
      '/api/nothing',
    );
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: 'Not Found' });
  });
});
