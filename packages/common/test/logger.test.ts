import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { createBaseApp } from '../src/http.js';
import { captureLogs } from '../src/testing/index.js';

describe('logging', () => {
  it('redacts password fields wherever they sit', () => {
    const logs = captureLogs();
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
    const logs = captureLogs();
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

  it('logs a request the client left before its answer as aborted, at warn', async () => {
    const logs = captureLogs();
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
