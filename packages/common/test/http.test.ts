import type { Express } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { AppError, StoreUnavailableError } from '../src/app-error.js';
import { createBaseApp, errorHandler, type FailureRenderer, notFound } from '../src/http.js';
import { captureLogs } from '../src/testing/index.js';

function buildApp(render?: FailureRenderer): {
  app: Express;
  logs: ReturnType<typeof captureLogs>;
} {
  const logs = captureLogs();
  const app = createBaseApp({ logger: logs.logger, bodyLimitKb: 1 });
  app.post('/echo', (req, res) => {
    res.json({ code: 200, message: 'ok', data: req.body ?? null });
  });
  app.get('/conflict', () => {
    throw new AppError(409, '用户名已存在');
  });
  app.get('/down', async () => {
    throw new StoreUnavailableError('Redis', new Error('ECONNREFUSED'));
  });
  app.get('/boom', async () => {
    throw new Error('SELECT secret FROM somewhere failed');
  });
  app.use(notFound(render));
  app.use(errorHandler(render));
  return { app, logs };
}

describe('createBaseApp', () => {
  it('parses JSON bodies and hides X-Powered-By', async () => {
    const res = await request(buildApp().app).post('/echo').send({ a: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: 'ok', data: { a: 1 } });
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('answers a malformed JSON body with a JSON 400 naming the body', async () => {
    const res = await request(buildApp().app)
      .post('/echo')
      .set('Content-Type', 'application/json')
      .send('{"a":');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({ code: 400, message: '请求体不是合法的JSON (body)' });
  });

  it('answers a body over the limit with a JSON 413', async () => {
    const res = await request(buildApp().app)
      .post('/echo')
      .send({ text: 'x'.repeat(2048) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ code: 413, message: '请求体过大' });
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await request(buildApp().app).get('/nowhere');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: 'Not Found' });
  });

  it('answers an AppError with its status and a store outage with 503', async () => {
    const { app } = buildApp();
    const conflict = await request(app).get('/conflict');
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ code: 409, message: '用户名已存在' });
    const down = await request(app).get('/down');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ code: 503, message: '服务暂不可用,请稍后重试' });
  });

  it('answers an unexpected error with a JSON 500 that leaks nothing, and logs it with the request id', async () => {
    const { app, logs } = buildApp();
    const res = await request(app).get('/boom').set('X-Request-Id', 'req-boom-1');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 500, message: '服务器内部错误' });
    expect(JSON.stringify(res.body)).not.toContain('SELECT');
    const failure = logs.entries().find((entry) => entry.msg === 'request failed');
    expect(failure).toMatchObject({
      reqId: 'req-boom-1',
      err: { message: expect.stringContaining('SELECT') },
    });
  });

  it('lets a service render failures in its own envelope', async () => {
    const render: FailureRenderer = (_req, res, failure) => {
      res.status(200).json({ code: failure.status, message: '添加失败', data: failure.detail });
    };
    const res = await request(buildApp(render).app)
      .post('/echo')
      .set('Content-Type', 'application/json')
      .send('not json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 400,
      message: '添加失败',
      data: 'request body is not valid JSON',
    });
  });

  it('keeps a well-formed X-Request-Id and replaces any other', async () => {
    const { app } = buildApp();
    const kept = await request(app).get('/nowhere').set('X-Request-Id', 'abc.DEF_1-2');
    expect(kept.headers['x-request-id']).toBe('abc.DEF_1-2');
    const replaced = await request(app).get('/nowhere').set('X-Request-Id', 'bad id with spaces');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const tooLong = await request(app).get('/nowhere').set('X-Request-Id', 'a'.repeat(129));
    expect(tooLong.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const generated = await request(app).get('/nowhere');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('is open to any origin and answers preflights with 204 and no body', async () => {
    const { app } = buildApp();
    const preflight = await request(app)
      .options('/echo')
      .set('Origin', 'https://admin.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(preflight.status).toBe(204);
    expect(preflight.text).toBe('');
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
  });
});
