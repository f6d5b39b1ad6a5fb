import request from 'supertest';
import { describe, expect, it } from 'vitest';
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
});
