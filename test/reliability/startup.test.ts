import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import {
  createTestDatabase,
  createTestRedis,
  freePort,
  type MysqlSettings,
  mysqlVariables,
  runMain,
} from '@svc/test-kit';
import mysql from 'mysql2/promise';
import { afterEach, describe, expect, it } from 'vitest';
import {
  labelledLinesOf,
  logEntries,
  type ServiceProcess,
  startService,
} from './support/service-process.js';

const root = join(import.meta.dirname, '..', '..');
const mainOf = (service: string) => join(root, `services/${service}/src/main.ts`);

async function storesFor(service: 'auth' | 'platform'): Promise<Record<string, string>> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  if (service === 'platform') return mysqlVariables(db.settings);
  const redis = await createTestRedis();
  return { ...mysqlVariables(db.settings), REDIS_URL: redis.url };
}

function occupy(port: number): Promise<Server> {
  const server = createServer();
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

let cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
  cleanups = [];
});

describe('a port already taken at start', () => {
  it.each(['auth', 'platform'] as const)(
    '%s exits non-zero at once with one line naming the port, never "listening"',
    async (service) => {
      const port = await freePort();
      const squatter = await occupy(port);
      cleanups.push(() => new Promise((resolve) => squatter.close(resolve)));

      const result = await runMain(mainOf(service), {
        ...(await storesFor(service)),
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'info',
      });

      expect(result.code).toBe(1);
      expect(result.ms).toBeLessThan(8000);
      expect(result.stderr).toBe(
        `${service}: cannot listen on port ${port} (host 127.0.0.1): the port is already in use\n`,
      );
      expect(result.stdout).not.toContain('listening');
    },
  );
});

describe('the platform without PLATFORM_ADMIN_TOKEN', () => {
  let running: ServiceProcess | undefined;
  afterEach(() => running?.stop());

  const warnings = (service: ServiceProcess) =>
    logEntries(service.output()).filter((entry) => entry.level === 40);

  it('warns at start that the administrator routes and phone numbers are open', async () => {
    running = await startService('platform', { ...(await storesFor('platform')) });
    expect(warnings(running).map((entry) => entry.msg)).toEqual([
      "PLATFORM_ADMIN_TOKEN is unset: the administrator routes and customers' phone numbers are open to anyone",
    ]);
  });

  it('does not warn when the token is set', async () => {
    running = await startService('platform', {
      ...(await storesFor('platform')),
      PLATFORM_ADMIN_TOKEN: 'a-token-of-sixteen-or-more',
    });
    expect(warnings(running)).toEqual([]);
    expect(running.output()).toContain('"adminRoutes":"token required"');
  });
});

/** `pnpm <script>` at the root, in its own process group, as a terminal runs it. */
function runRootScript(script: 'start' | 'dev' | 'migrate', env: Record<string, string>) {
  const child: ChildProcess = spawn('pnpm', [script], {
    cwd: root,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  cleanups.push(async () => {
    if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL');
    await exited;
  });
  return { output: () => output, exited, pgid: child.pid as number };
}

async function healthy(url: string, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const ok = await fetch(`${url}/healthz`)
      .then((res) => res.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the root start and dev scripts', () => {
  it.each(['dev', 'start'] as const)(
    'pnpm %s runs both services on their own ports and databases, and Ctrl-C ends it cleanly',
    async (script) => {
      const [authPort, platformPort] = [await freePort(), await freePort()];
      const auth = await storesFor('auth');
      const platform = await storesFor('platform');
      const databaseOf = (variables: Record<string, string>) => variables.MYSQL_DATABASE as string;
      const run = runRootScript(script, {
        ...auth,
        MYSQL_DATABASE: 'shared_by_mistake',
        PORT: '1',
        AUTH_PORT: String(authPort),
        AUTH_MYSQL_DATABASE: databaseOf(auth),
        PLATFORM_PORT: String(platformPort),
        PLATFORM_MYSQL_DATABASE: databaseOf(platform),
        HOST: '127.0.0.1',
      });

      await healthy(`http://127.0.0.1:${authPort}`, 90_000);
      await healthy(`http://127.0.0.1:${platformPort}`, 90_000);
      const output = run.output();
      expect(output).toContain(`"port":${authPort}`);
      expect(output).toContain(`"port":${platformPort}`);
      expect(output).not.toContain('shared_by_mistake');
      for (const [service, port] of [
        ['auth', authPort],
        ['platform', platformPort],
      ] as const) {
        const url = `http://127.0.0.1:${port}`;
        const banner = `${service} listening on ${url} (docs ${url}/docs, metrics ${url}/metrics)`;
        const messages = logEntries(labelledLinesOf(output, service)).map((entry) => entry.msg);
        expect(messages.filter((msg) => msg === banner)).toHaveLength(1);
        for (const page of [`${url}/docs`, `${url}/metrics`]) {
          expect((await fetch(page)).status, page).toBe(200);
        }
      }

      process.kill(-run.pgid, 'SIGINT');
      expect(await run.exited).toBe(0);
      const after = run.output();
      expect(after.match(/"msg":"stopped"/g)).toHaveLength(2);
      expect(after).not.toMatch(/Failed|ELIFECYCLE|ERR_PNPM/);
    },
    150_000,
  );
});

/** The tables of a database; none when it does not exist. */
async function tablesOf(settings: MysqlSettings): Promise<string[]> {
  const { database, ...server } = settings;
  const conn = await mysql.createConnection(server);
  try {
    const [rows] = await conn.query<mysql.RowDataPacket[]>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? ORDER BY 1',
      [database],
    );
    return rows.map((row) => row.name as string);
  } finally {
    await conn.end();
  }
}

describe('the root migrate script', () => {
  it('pnpm migrate puts each service in its own database, as AUTH_ and PLATFORM_ name them', async () => {
    const auth = await createTestDatabase();
    const platform = await createTestDatabase();
    const shared = await createTestDatabase();
    cleanups.push(...[auth, platform, shared].map((db) => () => db.drop()));
    const run = runRootScript('migrate', {
      ...mysqlVariables(shared.settings),
      AUTH_MYSQL_DATABASE: auth.settings.database,
      PLATFORM_MYSQL_DATABASE: platform.settings.database,
    });

    expect(await run.exited, run.output()).toBe(0);
    expect(await tablesOf(auth.settings)).toEqual([
      'auth_secrets',
      'password_changes',
      'recovery_codes',
      'schema_migrations',
      'security_events',
      'users',
      'user_totp',
    ]);
    expect(await tablesOf(platform.settings)).toEqual(
      expect.arrayContaining(['merchants', 'orders', 'schema_migrations', 'services']),
    );
    expect(await tablesOf(platform.settings)).not.toContain('users');
    expect(await tablesOf(shared.settings)).toEqual([]);
  }, 150_000);
});
