import { createHash, randomBytes } from 'node:crypto';
import { connectRedis, createBaseApp, createLogger } from '@svc/common';
import { createGuard } from '@svc/session-guard';
import { type Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, register } from './support/auth-client.js';
import { type AuthOnCluster, authOnCluster } from './support/auth-on-cluster.js';
import type { ServiceProcess } from './support/service-process.js';

/*
 * The auth service on a real three-master Redis Cluster. A session key and its
 * user's index hash to different slots (the session key cannot carry a hash tag),
 * and a session's metadata shares its session's slot through the tag in its name,
 * so these flows pass only if no command spans two slots.
 */
describe('auth on a three-master Redis Cluster', () => {
  let deployment: AuthOnCluster;
  let auth: ServiceProcess;
  let redis: Cluster;

  beforeAll(async () => {
    deployment = await authOnCluster({ LOGIN_MAX_FAILURES: '3' });
    auth = deployment.auth;
    redis = (await connectRedis({
      host: '',
      port: 0,
      db: 0,
      clusterNodes: deployment.cluster.nodes,
    })) as Cluster;
  });

  afterAll(async () => {
    redis?.disconnect();
    await deployment?.stop();
  });

  const user = () => `cl-${randomBytes(4).toString('hex')}`;
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  it('spreads one user’s keys over several masters', async () => {
    const name = user();
    await register(auth.url, name, 'cluster-pass-1');
    for (let i = 0; i < 6; i++) await login(auth.url, name, 'cluster-pass-1');
    const holders = await Promise.all(
      deployment.cluster.nodes.map(async ({ port }) => {
        const node = new Redis({ port, host: '127.0.0.1' });
        const keys = await node.keys('session:*');
        node.disconnect();
        return keys.length;
      }),
    );
    expect(holders.filter((count) => count > 0).length).toBeGreaterThan(1);
    expect(await redis.scard(`session:user:${name}`)).toBe(6);
  });

  it('keeps the limiter fair and tight: 30 parallel right logins pass, of 40 wrong ones 3 are checked', async () => {
    const name = user();
    await register(auth.url, name, 'cluster-pass-1');
    const right = await Promise.all(
      Array.from({ length: 30 }, () =>
        call(auth.url, '/api/user/login', { body: { username: name, password: 'cluster-pass-1' } }),
      ),
    );
    expect(right.map((answer) => answer.status)).toEqual(Array(30).fill(200));

    const wrong = await Promise.all(
      Array.from({ length: 40 }, () =>
        call(auth.url, '/api/user/login', { body: { username: name, password: 'wrong-guess' } }),
      ),
    );
    const statuses = wrong.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(37);
    const locked = await call(auth.url, '/api/user/login', {
      body: { username: name, password: 'cluster-pass-1' },
    });
    expect(locked.status).toBe(429);
  });

  it('guards, logs out one session, and revokes every session on a password change', async () => {
    const name = user();
    await register(auth.url, name, 'cluster-pass-1');
    const tokens = [];
    for (let i = 0; i < 5; i++) tokens.push(await login(auth.url, name, 'cluster-pass-1'));
    for (const token of tokens) {
      expect((await call(auth.url, '/api/user/me', { token })).body.data).toEqual({
        username: name,
        totp: false,
      });
    }
    const status = await call(auth.url, '/api/user/status', { token: tokens[0] });
    expect(status.body.data).toMatchObject({ loggedIn: true, username: name });

    expect(
      (await call(auth.url, '/api/user/logout', { method: 'POST', token: tokens[0] })).status,
    ).toBe(200);
    expect((await call(auth.url, '/api/user/me', { token: tokens[0] })).status).toBe(401);
    expect((await call(auth.url, '/api/user/me', { token: tokens[1] })).status).toBe(200);
    expect(await redis.scard(`session:user:${name}`)).toBe(4);

    const change = await call(auth.url, '/api/user/change-password', {
      token: tokens[1],
      body: { oldPassword: 'cluster-pass-1', newPassword: 'cluster-pass-2' },
    });
    expect(change.status).toBe(200);
    for (const token of tokens) {
      expect((await call(auth.url, '/api/user/me', { token })).status).toBe(401);
    }
    expect(await redis.exists(`session:user:${name}`)).toBe(0);
    const fresh = await login(auth.url, name, 'cluster-pass-2');
    expect((await call(auth.url, '/api/user/me', { token: fresh })).status).toBe(200);
  });

  it('lists and ends sessions, each session beside its metadata on one node, every key expiring', async () => {
    const name = user();
    await register(auth.url, name, 'cluster-pass-1');
    const tokens = [];
    for (let i = 0; i < 6; i++) tokens.push(await login(auth.url, name, 'cluster-pass-1'));
    const current = tokens[0] as string;
    const listed = await call(auth.url, '/api/user/sessions', { token: current });
    const sessions = listed.body.data as unknown as { id: string; current: boolean }[];
    expect(listed.status).toBe(200);
    expect(sessions).toHaveLength(6);
    expect(sessions.filter((session) => session.current)).toHaveLength(1);

    const nodes = deployment.cluster.nodes.map(
      ({ port }) => new Redis({ port, host: '127.0.0.1' }),
    );
    try {
      const owners = await Promise.all(nodes.map((node) => node.keys('*')));
      for (const token of tokens) {
        const key = `session:${sha256(token)}`;
        const holder = owners.findIndex((keys) => keys.includes(key));
        expect(holder, key).toBeGreaterThanOrEqual(0);
        expect(owners[holder]).toContain(`{${key}}:meta`);
      }
      for (const [i, node] of nodes.entries()) {
        for (const key of owners[i] ?? []) expect(await node.pttl(key), key).toBeGreaterThan(0);
      }
    } finally {
      for (const node of nodes) node.disconnect();
    }

    const other = sessions.find((session) => !session.current) as { id: string };
    const ended = await call(auth.url, `/api/user/sessions/${other.id}`, {
      method: 'DELETE',
      token: current,
    });
    expect([ended.status, ended.body]).toEqual([200, { code: 200, message: '会话已结束' }]);
    const others = await call(auth.url, '/api/user/sessions', { method: 'DELETE', token: current });
    expect(others.body).toEqual({ code: 200, message: '已退出其他会话', data: { ended: 4 } });
    const statuses = await Promise.all(
      tokens.map(async (token) => (await call(auth.url, '/api/user/me', { token })).status),
    );
    expect(statuses).toEqual([200, 401, 401, 401, 401, 401]);
    expect(await redis.smembers(`session:user:${name}`)).toEqual([sha256(current)]);

    const all = await call(auth.url, '/api/user/logout-all', { method: 'POST', token: current });
    expect(all.body).toEqual({ code: 200, message: '已退出全部会话', data: { ended: 1 } });
    expect((await call(auth.url, '/api/user/me', { token: current })).status).toBe(401);
    expect(await redis.exists(`session:user:${name}`)).toBe(0);
  });

  it('locks a username and address after repeated failures', async () => {
    const name = user();
    await register(auth.url, name, 'cluster-pass-1');
    const attempt = () =>
      call(auth.url, '/api/user/login', { body: { username: name, password: 'wrong-pass-1' } });
    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
    const locked = await attempt();
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('lets a guard in another process, on its own Cluster client, accept the service’s tokens', async () => {
    const name = user();
    await register(auth.url, name, 'cluster-pass-1');
    const token = await login(auth.url, name, 'cluster-pass-1');
    const app = createBaseApp({ logger: createLogger({ name: 'guard', level: 'silent' }) });
    app.get('/guarded', createGuard({ redis }), (req, res) => {
      res.json({ code: 200, message: 'ok', data: req.user });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      expect((await call(base, '/guarded', { token })).body.data).toEqual({ username: name });
      expect((await call(base, '/guarded', { token: 'f'.repeat(64) })).status).toBe(401);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
