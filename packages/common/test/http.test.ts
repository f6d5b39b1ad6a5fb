import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { bodyFaultOf, createBaseApp } from '../src/http.js';
import { testLogs } from './support/test-logs.js';

function buildApp() {
  const app = createBaseApp({ logger: testLogs().logger });
  app.post('/echo', express.json({ limit: '1kb' }), (req, res) => {
    res.json({ data: req.body ?? null });
  });
  const faultOfBody: ErrorRequestHandler = (err, _req, res, _next) => {
    res.status(299).json({ fault: bodyFaultOf(err) ?? null });
  };
  app.use(faultOfBody);
  return app;
}

const post = (headers: Record<string, string>, body: string | Buffer) => {
  const req = request(buildApp()).post('/echo');
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req.send(body);
};

describe('createBaseApp', () => {
  it('hides X-Powered-By and leaves bodies to the routes', async () => {
    const res = await request(buildApp()).post('/echo').send({ a: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { a: 1 } });
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('keeps a well-formed X-Request-Id and replaces any other', async () => {
    const app = buildApp();
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
    const preflight = await request(buildApp())
      .options('/echo')
      .set('Origin', 'https://admin.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(preflight.status).toBe(204);
    expect(preflight.text).toBe('');
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('bodyFaultOf', () => {
  it('names what express.json() refused, with its status', async () => {
    const json = { 'Content-Type': 'application/json' };
    expect((await post(json, '{"a":')).body.fault).toEqual({ status: 400, fault: 'malformed' });
    expect((await post(json, JSON.stringify({ t: 'x'.repeat(2048) }))).body.fault).toEqual({
      status: 413,
      fault: 'too-large',
    });
    expect((await post({ ...json, 'Content-Encoding': 'br2' }, '{}')).body.fault).toEqual({
      status: 415,
      fault: 'unsupported',
    });
    expect(
      (await post({ 'Content-Type': 'application/json; charset=klingon' }, '{}')).body.fault,
    ).toEqual({ status: 415, fault: 'unsupported' });
    expect(
      (await post({ ...json, 'Content-Encoding': 'gzip' }, Buffer.from('not gzip'))).body.fault,
    ).toEqual({ status: 400, fault: 'undecodable' });
  });

  it('is undefined for any error that is not a refused body', () => {
    expect(bodyFaultOf(new Error('boom'))).toBeUndefined();
    expect(bodyFaultOf(Object.assign(new Error('down'), { status: 503 }))).toBeUndefined();
    expect(bodyFaultOf(undefined)).toBeUndefined();
  });
});
