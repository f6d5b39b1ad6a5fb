import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { createBaseApp } from '../src/http.js';
import { testLogs } from './support/test-logs.js';

describe('logging', () => {
  it('redacts password fields wherever they sit', () => {
    const logs = testLogs();
    logs.logger.info({
      password: 'pw-top',
      body: { oldPassword: 'pw-old', newPassword: 'pw-new' },
    });
    logs.logger.info({ user: { password: 'pw-nested' }, token: 'tok-top' });
    const text = logs.text();
    for (const secret of ['pw-top', 'pw-old', 'pw-new', 'pw-nested', 'tok-top']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });

  it('logs one line per request with its id, and never the Authorization or token header', async () => {
    const logs = testLogs();
    const app = createBaseApp({ logger: logs.logger });
    app.get('/ping', (req, res) => {
      req.log.info('handling ping');
      res.json({ code: 200, message: 'ok' });
    });
    await request(app)
      .get('/ping')
      .set('Authorization', 'Bearer secret-bearer-value')
      .set('token', 'secret-token-value')
      .set('X-Request-Id', 'log-test-1');
    const text = logs.text();
    expect(text).not.toContain('secret-bearer-value');
    expect(text).not.toContain('secret-token-value');
    const completed = logs.entries().find((entry) => entry.msg === 'request completed');
    expect(completed).toMatchObject({
      level: 30,
      responseTime: expect.any(Number),
      reqId: 'log-test-1',
      req: {
        method: 'GET',
        url: '/ping',
        headers: { authorization: '[redacted]', token: '[redacted]' },
      },
      res: { statusCode: 200 },
    });
    const handled = logs.entries().find((entry) => entry.msg === 'handling ping');
    expect(handled?.reqId).toBe('log-test-1');
  });

  it('shows every request header on the line but the credentials, censored however they are spelt', async () => {
    const logs = testLogs();
    const app = createBaseApp({ logger: logs.logger });
    app.get('/ping', (_req, res) => {
      res.json({ code: 200 });
    });
    await request(app)
      .get('/ping?page=2')
      .set('Authorization', 'Bearer secret-bearer-value')
      .set('Proxy-Authorization', 'Basic secret-proxy-value')
      .set('Cookie', 'sid=secret-cookie-value')
      .set('token', 'secret-token-value')
      .set('password', 'secret-password-value')
      .set('X-Device-Token', 'secret-device-value')
      .set('User-Agent', 'probe/1.0')
      .set('X-Trace', 'trace-1')
      .set('X-Request-Id', 'headers-1');
    const text = logs.text();
    for (const secret of ['bearer', 'proxy', 'cookie', 'token', 'password', 'device']) {
      expect(text).not.toContain(`secret-${secret}-value`);
    }
    const completed = logs.entries().find((entry) => entry.msg === 'request completed');
    expect(completed).toMatchObject({
      reqId: 'headers-1',
      responseTime: expect.any(Number),
      req: {
        id: 'headers-1',
        method: 'GET',
        url: '/ping?page=2',
        remoteAddress: expect.any(String),
        headers: {
          authorization: '[redacted]',
          'proxy-authorization': '[redacted]',
          cookie: '[redacted]',
          token: '[redacted]',
          password: '[redacted]',
          'x-device-token': '[redacted]',
          'user-agent': 'probe/1.0',
          'x-trace': 'trace-1',
        },
      },
      res: { statusCode: 200 },
    });
  });

  it("keeps the service logger's redaction on what a handler logs through req.log", async () => {
    const logs = testLogs();
    const app = createBaseApp({ logger: logs.logger });
    app.post('/change', (req, res) => {
      req.log.warn({ body: req.body, input: { user: { password: 'pw-deep' } } }, 'change refused');
      req.log.info({ headers: req.headers }, 'headers seen');
      res.status(400).json({ code: 400 });
    });
    await request(app)
      .post('/change')
      .set('Authorization', 'Bearer secret-bearer-value')
      .send({ oldPassword: 'pw-old', newPassword: 'pw-new', token: 'tok-body' });
    const text = logs.text();
    for (const secret of ['pw-deep', 'pw-old', 'pw-new', 'tok-body', 'secret-bearer-value']) {
      expect(text).not.toContain(secret);
    }
    expect(logs.entries().find((entry) => entry.msg === 'change refused')?.reqId).toBeTruthy();
  });

  it("writes the request line at the service logger's level, also when it changes", async () => {
    const logs = testLogs();
    const app = createBaseApp({ logger: logs.logger });
    app.get('/ping', (_req, res) => {
      res.json({ code: 200 });
    });
    logs.logger.level = 'warn';
    await request(app).get('/ping').set('X-Request-Id', 'quiet-1');
    await request(app).get('/nowhere').set('X-Request-Id', 'missing-1');
    logs.logger.level = 'info';
    await request(app).get('/ping').set('X-Request-Id', 'loud-1');
    const ids = logs
      .entries()
      .filter((entry) => entry.msg === 'request completed')
      .map((entry) => entry.reqId);
    expect(ids).toEqual(['missing-1', 'loud-1']);
  });

  it('logs a request the client left before its answer as aborted, at warn', async () => {
    const logs = testLogs();
    const app = createBaseApp({ logger: logs.logger });
    let answer: (() => void) | undefined;
    app.get('/slow', (_req, res) => {
      answer = () => res.json({ code: 200 });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const client = httpRequest({
      port,
      host: '127.0.0.1',
      path: '/slow',
      headers: { 'x-request-id': 'gone-1' },
    });
    client.on('error', () => {});
    client.end();
    await vi.waitFor(() => expect(answer).toBeDefined());
    client.destroy();
    await vi.waitFor(() =>
      expect(logs.entries().find((entry) => entry.msg === 'request aborted')).toMatchObject({
        level: 40,
        reqId: 'gone-1',
        req: { method: 'GET', url: '/slow' },
      }),
    );
    expect(logs.entries().some((entry) => entry.msg === 'request completed')).toBe(false);
    answer?.();
    await new Promise((resolve) => server.close(resolve));
  });
});
