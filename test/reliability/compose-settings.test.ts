import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createTestDatabase,
  createTestRedis,
  mysqlVariables,
  startMariaDbServer,
  type TestServer,
} from '@svc/test-kit';
import mysql from 'mysql2/promise';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { register } from './support/auth-client.js';
import { type ServiceProcess, startService } from './support/service-process.js';

const root = join(import.meta.dirname, '..', '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'));
const scaledTrustProxy = String(compose.services['auth-scaled'].environment.TRUST_PROXY);

let running: ServiceProcess[] = [];
afterEach(async () => {
  await Promise.all(running.map((service) => service.stop()));
  running = [];
});

async function authWith(trustProxy: string): Promise<ServiceProcess> {
  const db = await createTestDatabase();
  const redis = await createTestRedis();
  const service = await startService('auth', {
    ...mysqlVariables(db.settings),
    REDIS_URL: redis.url,
    TRUST_PROXY: trustProxy,
    LOGIN_MAX_FAILURES: '5',
  });
  running.push(service);
  return service;
}

/** Five wrong passwords, each claiming another client address, then the right one. */
async function rotateForgedAddresses(base: string): Promise<number> {
  await register(base, 'rotor', 'right-password-1');
  const attempt = (password: string, n: number) =>
    fetch(`${base}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${n}` },
      body: JSON.stringify({ username: 'rotor', password }),
    });
  for (let n = 1; n <= 5; n++) expect((await attempt('wrong-password', n)).status).toBe(401);
  return (await attempt('right-password-1', 6)).status;
}

describe("the scaled profile's TRUST_PROXY", () => {
  it('trusts only the nginx address, so a forged X-Forwarded-For cannot rotate past the limiter', async () => {
    expect(scaledTrustProxy).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const auth = await authWith(scaledTrustProxy);
    expect(await rotateForgedAddresses(auth.url)).toBe(429);
  });

  it('(the control: trusting the client hop lets the same rotation through)', async () => {
    const auth = await authWith('loopback');
    expect(await rotateForgedAddresses(auth.url)).toBe(200);
  });
});

describe('deploy/mysql/init: one MySQL user per service', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startMariaDbServer();
    const { hostname, port } = new URL(server.url);
    await promisify(execFile)('bash', [join(root, 'deploy/mysql/init/01-service-users.sh')], {
      env: {
        ...process.env,
        MYSQL_HOST: hostname,
        MYSQL_TCP_PORT: port,
        MYSQL_ROOT_PASSWORD: '',
        AUTH_MYSQL_PASSWORD: "auth's secret",
        PLATFORM_MYSQL_PASSWORD: 'platform\\secret',
      },
    });
  });
  afterAll(() => server?.destroy());

  const settingsFor = (user: string, password: string, database: string) => {
    const { hostname, port } = new URL(server.url);
    return { host: hostname, port: Number(port), user, password, database };
  };

  it.each([
    ['auth', "auth's secret", 'judge', 'life_service'],
    ['platform', 'platform\\secret', 'life_service', 'judge'],
  ])(
    '%s runs its migrations and serves with its own user, and cannot see the other database',
    async (name, password, own, other) => {
      const settings = settingsFor(name, password, own);
      const redis: Record<string, string> =
        name === 'auth' ? { REDIS_URL: (await createTestRedis()).url } : {};
      const service = await startService(name as 'auth' | 'platform', {
        ...mysqlVariables(settings),
        ...redis,
      });
      running.push(service);
      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status).toBe(200);

      const conn = await mysql.createConnection(settingsFor(name, password, own));
      try {
        const [tables] = await conn.query('SHOW TABLES');
        expect((tables as unknown[]).length).toBeGreaterThan(0);
        await expect(conn.query(`SELECT 1 FROM \`${other}\`.schema_migrations`)).rejects.toThrow(
          /denied/,
        );
        await expect(conn.query('CREATE DATABASE elsewhere')).rejects.toThrow(/denied/);
      } finally {
        await conn.end();
      }
    },
  );
});
