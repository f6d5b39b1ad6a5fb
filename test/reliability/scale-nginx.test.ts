import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { connectRedis, createBaseApp, createLogger, createMysqlPool } from '@svc/common';
import { createGuard } from '@svc/session-guard';
import {
  createTestDatabase,
  createTestRedis,
  mysqlVariables,
  type TestDatabase,
} from '@svc/test-kit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, register } from './support/auth-client.js';
import { type Balancer, startNginx } from './support/nginx.js';
import { logEntries, type ServiceProcess, startService } from './support/service-process.js';

const root = join(import.meta.dirname, '..', '..');
const migrations = (name: string) => readdirSync(join(root, `services/${name}/migrations`));

/** Which instances logged a request with this id. */
const servedBy = (instances: ServiceProcess[], id: string) =>
  instances.filter((instance) => instance.output().includes(id)).map((i) => instances.indexOf(i));

/*
 * Two instances of each service on their own ports behind nginx round-robin,
 * sharing one Redis and one MySQL database per service, started together.
 */
describe('two instances of each service behind nginx', () => {
  let authDb: TestDatabase;
  let platformDb: TestDatabase;
  let auths: ServiceProcess[] = [];
  let platforms: ServiceProcess[] = [];
  let nginx: Balancer;
  let redis: Redis;

  beforeAll(async () => {
    authDb = await createTestDatabase();
    platformDb = await createTestDatabase();
    const testRedis = await createTestRedis();
    const authEnv = { ...mysqlVariables(authDb.settings), REDIS_URL: testRedis.url };
    // Started together, so both race for the migrations.
    [auths, platforms] = await Promise.all([
      Promise.all([startService('auth', authEnv), startService('auth', authEnv)]),
      Promise.all([
        startService('platform', mysqlVariables(platformDb.settings)),
        startService('platform', mysqlVariables(platformDb.settings)),
      ]),
    ]);
    nginx = await startNginx({
      auth: auths.map((a) => a.url),
      platform: platforms.map((p) => p.url),
    });
    redis = await connectRedis(testRedis.settings);
  });

  afterAll(async () => {
    redis?.disconnect();
    await nginx?.stop();
    await Promise.all([...auths, ...platforms].map((instance) => instance.stop()));
    await authDb?.drop();
    await platformDb?.drop();
  });

  it('ran each migration once although both instances started together', async () => {
    for (const [name, instances, db] of [
      ['auth', auths, authDb],
      ['platform', platforms, platformDb],
    ] as const) {
      const applied = instances.flatMap((instance) =>
        logEntries(instance.output()).filter((entry) => entry.msg === 'migration applied'),
      );
      expect(applied.map((entry) => entry.migration).sort()).toEqual(migrations(name).sort());
      const pool = await createMysqlPool(db.settings);
      const [rows] = await pool.query('SELECT version FROM schema_migrations ORDER BY version');
      await pool.end();
      expect((rows as { version: string }[]).map((row) => row.version)).toEqual(
        migrations(name).sort(),
      );
    }
  });

  it('alternates requests between the two instances of each service', async () => {
    for (const [name, instances] of [
      ['auth', auths],
      ['platform', platforms],
    ] as const) {
      const order: number[] = [];
      for (let i = 0; i < 10; i++) {
        const id = `rr-${name}-${randomBytes(6).toString('hex')}`;
        const answer = await call(nginx.urls[name] as string, '/healthz', { requestId: id });
        expect(answer.headers.get('x-request-id')).toBe(id);
        await expect.poll(() => servedBy(instances, id).length).toBe(1);
        order.push(servedBy(instances, id)[0] as number);
      }
      for (let i = 1; i < order.length; i++) expect(order[i]).not.toBe(order[i - 1]);
    }
  });

  it('accepts a token issued through one auth instance on the other, and in a guard elsewhere', async () => {
    const name = `ng-${randomBytes(4).toString('hex')}`;
    await register(nginx.urls.auth as string, name, 'nginx-pass-1');
    const token = await login(nginx.urls.auth as string, name, 'nginx-pass-1');
    for (const instance of auths) {
      expect((await call(instance.url, '/api/user/me', { token })).body.data).toEqual({
        username: name,
        totp: false,
      });
    }
    const direct = await login(auths[0]?.url as string, name, 'nginx-pass-1');
    expect((await call(auths[1]?.url as string, '/api/user/me', { token: direct })).status).toBe(
      200,
    );

    const app = createBaseApp({ logger: createLogger({ name: 'guard', level: 'silent' }) });
    app.get('/guarded', createGuard({ redis }), (req, res) => {
      res.json({ code: 200, message: 'ok', data: req.user });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      expect((await call(base, '/guarded', { token })).body.data).toEqual({ username: name });
      // Logging out through the other instance ends the session for everyone.
      await call(auths[1]?.url as string, '/api/user/logout', { method: 'POST', token });
      expect((await call(base, '/guarded', { token })).status).toBe(401);
      expect((await call(auths[0]?.url as string, '/api/user/me', { token })).status).toBe(401);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('lists a merchant created through one platform instance on the other', async () => {
    const merchant = {
      name: `商家-${randomBytes(3).toString('hex')}`,
      address: '北京',
      phone: '13800138000',
    };
    const created = await call(platforms[0]?.url as string, '/api/merchant/add', {
      body: merchant,
    });
    expect(created.body.code).toBe(200);
    const id = created.body.data?.id;
    for (const base of [platforms[1]?.url as string, nginx.urls.platform as string]) {
      const list = await call(base, '/api/merchant/list');
      const rows = list.body.data as unknown as { id: number; name: string }[];
      expect(rows.find((row) => row.id === id)?.name).toBe(merchant.name);
    }
  });
});
