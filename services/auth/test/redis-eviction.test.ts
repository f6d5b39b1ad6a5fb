import { fileURLToPath } from 'node:url';
import {
  createTestDatabase,
  mysqlVariables,
  startMain,
  startRedisServer,
  type TestDatabase,
  type TestServer,
} from '@svc/test-kit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** The real service, started as an operator would, until it answers /healthz. */
const startAuth = (env: Record<string, string>) => startMain(main, { LOG_FORMAT: 'json', ...env });

const logLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });

async function readyz(url: string) {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
}

describe("start-up reads Redis's maxmemory-policy", () => {
  let redisServer: TestServer;
  let db: TestDatabase;
  let admin: Redis;
  const env = () => ({ ...mysqlVariables(db.settings), REDIS_URL: redisServer.url });

  beforeAll(async () => {
    redisServer = await startRedisServer();
    db = await createTestDatabase();
    admin = new Redis(redisServer.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await redisServer?.destroy();
    await db?.drop();
  });

  it('an evicting policy is a loud warning in the log and in /readyz, which still answers 200', async () => {
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const auth = await startAuth(env());
    try {
      const { status, body } = await readyz(auth.url);
      expect(status).toBe(200);
      expect(body).toEqual({
        code: 200,
        message: 'ok',
        data: { redis: 'up', mysql: 'up', warnings: [expect.any(String)] },
      });
      const [warning] = body.data.warnings as string[];
      expect(warning).toContain('maxmemory-policy is allkeys-lru, not noeviction');
      expect(warning).toContain('judging queue');
      const logged = logLines(auth.output()).filter((line) => line.msg.includes('allkeys-lru'));
      expect(logged).toHaveLength(1);
      expect(logged[0]?.level).toBe(50);
      expect(logged[0]?.msg).toContain(warning as string);
    } finally {
      await auth.stop();
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
    }
  });

  it('noeviction: no warning anywhere', async () => {
    const auth = await startAuth(env());
    try {
      expect(await readyz(auth.url)).toEqual({
        status: 200,
        body: { code: 200, message: 'ok', data: { redis: 'up', mysql: 'up' } },
      });
      expect(auth.output()).not.toContain('maxmemory-policy');
    } finally {
      await auth.stop();
    }
  });

  it('a policy it may not read (as on managed services) is said once, and the service runs', async () => {
    await admin.call('ACL', 'SETUSER', 'app', 'on', '>app-secret', '~*', '&*', '+@all', '-config');
    const url = new URL(redisServer.url);
    url.username = 'app';
    url.password = 'app-secret';
    const auth = await startAuth({ ...env(), REDIS_URL: url.toString() });
    try {
      expect((await readyz(auth.url)).body.data).toEqual({ redis: 'up', mysql: 'up' });
      const said = logLines(auth.output()).filter((line) => line.msg.includes('maxmemory-policy'));
      expect(said.map((line) => [line.level, line.msg.split(';')[0]])).toEqual([
        [40, "cannot read Redis's maxmemory-policy"],
      ]);
    } finally {
      await auth.stop();
    }
  });
});
