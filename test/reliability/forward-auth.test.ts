import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestDatabase,
  freePort,
  mysqlVariables,
  startRedisServer,
  type TestServer,
} from '@svc/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, register } from './support/auth-client.js';
import { type Balancer, runNginx } from './support/nginx.js';
import { type ServiceProcess, startService } from './support/service-process.js';

const root = join(import.meta.dirname, '..', '..');

/*
 * deploy/nginx/auth-request.conf as shipped, in front of a small upstream that
 * tells what it was given, with the real auth service answering the verify
 * subrequests: the set-up a team on Java, Go or PHP would run.
 */
describe('forward auth through nginx (deploy/nginx/auth-request.conf)', () => {
  let redis: TestServer;
  let auth: ServiceProcess;
  let upstream: Server;
  let nginx: Balancer;
  let base: string;
  const seen: (string | undefined)[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    auth = await startService('auth', {
      ...mysqlVariables((await createTestDatabase()).settings),
      REDIS_URL: redis.url,
      REDIS_COMMAND_TIMEOUT_MS: '300',
    });
    upstream = createServer((req, res) => {
      const user = req.headers['x-auth-user'] as string | undefined;
      seen.push(user);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ upstream: true, user: user ?? null }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamPort = (upstream.address() as AddressInfo).port;
    const listenPort = await freePort();
    const conf = readFileSync(join(root, 'deploy/nginx/auth-request.conf'), 'utf8')
      .replace('server 127.0.0.1:3000;', `server ${new URL(auth.url).host};`)
      .replace('server 127.0.0.1:8080;', `server 127.0.0.1:${upstreamPort};`)
      .replace('listen 8090;', `listen 127.0.0.1:${listenPort};`);
    base = `http://127.0.0.1:${listenPort}`;
    const dir = await mkdtemp(join(tmpdir(), 'nginx-forward-auth-'));
    nginx = await runNginx(dir, conf.split('\n'), [`${base}/`]);
  });

  afterAll(async () => {
    await nginx?.stop();
    upstream?.close();
    await auth?.stop();
    await redis?.destroy();
  });

  const get = (headers: Record<string, string> = {}) =>
    fetch(`${base}/api/testQuestion/list`, { headers });

  it('lets a live token through with X-Auth-User, in either header, and ignores a forged one', async () => {
    await register(auth.url, 'forward_user', 'forward-pass-1');
    const token = await login(auth.url, 'forward_user', 'forward-pass-1');
    for (const headers of <Record<string, string>[]>[
      { authorization: `Bearer ${token}` },
      { token },
      { token, 'x-auth-user': 'someone-else' },
    ]) {
      const res = await get(headers);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ upstream: true, user: 'forward_user' });
    }
  });

  it('answers 401 without a token and for a logged-out token, and the upstream never sees them', async () => {
    const before = seen.length;
    const none = await get({ 'x-auth-user': 'forged' });
    expect(none.status).toBe(401);

    await register(auth.url, 'leaving_user', 'forward-pass-1');
    const token = await login(auth.url, 'leaving_user', 'forward-pass-1');
    expect((await get({ token })).status).toBe(200);
    expect((await call(auth.url, '/api/user/logout', { method: 'POST', token })).status).toBe(200);
    expect((await get({ token })).status).toBe(401);
    expect(seen.length).toBe(before + 1);
  });

  it('refuses at once a session ended from another device, by id or by "log out everywhere"', async () => {
    await register(auth.url, 'ending_user', 'forward-pass-1');
    const lab = await login(auth.url, 'ending_user', 'forward-pass-1');
    const home = await login(auth.url, 'ending_user', 'forward-pass-1');
    expect((await get({ token: lab })).status).toBe(200);
    const listed = await call(auth.url, '/api/user/sessions', { token: home });
    const labSession = (listed.body.data as unknown as { id: string; current: boolean }[]).find(
      (session) => !session.current,
    );
    const ended = await call(auth.url, `/api/user/sessions/${labSession?.id}`, {
      method: 'DELETE',
      token: home,
    });
    expect(ended.status).toBe(200);
    // nginx answers the 401 itself (the conf's head says so), and the upstream never sees it.
    const before = seen.length;
    expect((await get({ token: lab })).status).toBe(401);
    expect(seen.length).toBe(before);

    expect((await get({ token: home })).status).toBe(200);
    const all = await call(auth.url, '/api/user/logout-all', { method: 'POST', token: home });
    expect(all.status).toBe(200);
    expect((await get({ token: home })).status).toBe(401);
  });

  it('answers 503 with Retry-After, not 500 and not 401, while Redis is down', async () => {
    await register(auth.url, 'outage_user', 'forward-pass-1');
    const token = await login(auth.url, 'outage_user', 'forward-pass-1');
    await redis.stop();
    try {
      const res = await get({ authorization: `Bearer ${token}` });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ code: 503, message: '服务暂不可用,请稍后重试' });
    } finally {
      await redis.start();
    }
    // The test's Redis keeps nothing across its restart: a new login is served again.
    await expect
      .poll(
        async () => {
          const fresh = await call(auth.url, '/api/user/login', {
            body: { username: 'outage_user', password: 'forward-pass-1' },
          });
          return fresh.status === 200
            ? (await get({ token: fresh.body.data?.token as string })).status
            : fresh.status;
        },
        { timeout: 10_000 },
      )
      .toBe(200);
  });
});
