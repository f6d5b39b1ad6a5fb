import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import {
  createTestDatabase,
  createTestRedis,
  freePort,
  mysqlVariables,
  type TestDatabase,
} from '@svc/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelledLinesOf, logEntries } from './support/service-process.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

/** The README's first command in a clone, in its own process group, as a terminal runs it. */
function runStart(cwd: string, env: NodeJS.ProcessEnv) {
  const child: ChildProcess = spawn('./run', ['start'], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    output: () => output,
    exited,
    /** Ctrl-C at the terminal, then the exit code. */
    interrupt: () => {
      if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGINT');
      return exited;
    },
    kill: () => child.exitCode === null && process.kill(-(child.pid as number), 'SIGKILL'),
  };
}

async function ready(urls: string[], deadline: number, output: () => string): Promise<void> {
  for (const url of urls) {
    for (;;) {
      const ok = await fetch(`${url}/healthz`).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`${url} did not come up:\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The environment of a fresh shell: ours without what pnpm, vitest and the test kit add. */
function shellEnvironment(): NodeJS.ProcessEnv {
  const added = /^(npm_|pnpm_|VITEST|TEST_|INIT_CWD$|NODE_ENV$|NODE_OPTIONS$)/i;
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !added.test(name)));
}

/*
 * A newcomer's clean clone, in a fresh shell: the machine's own Node first on
 * PATH (the one we ship is not there), and a pnpm that does not work, so the
 * command must bring its own. The stores are this run's throwaway servers,
 * named through the AUTH_/PLATFORM_ variables docs/operations.md documents.
 */
describe('./run start on a clean clone', () => {
  let scratch: string;
  let clone: string;
  let env: NodeJS.ProcessEnv;
  let auth: string;
  let platform: string;
  const databases: TestDatabase[] = [];
  let current: ReturnType<typeof runStart> | undefined;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'quick-start-'));
    clone = join(scratch, 'clone');
    await run('git', ['clone', '--quiet', root, clone]);
    const noPnpm = join(scratch, 'bin');
    mkdirSync(noPnpm);
    writeFileSync(join(noPnpm, 'pnpm'), '#!/bin/sh\necho "pnpm: not installed" >&2\nexit 127\n');
    chmodSync(join(noPnpm, 'pnpm'), 0o755);
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !/[/\\]\.cache[/\\]node-/.test(dir) && !dir.includes('node_modules'));
    const [authPort, platformPort] = [await freePort(), await freePort()];
    const authDb = await createTestDatabase();
    const platformDb = await createTestDatabase();
    databases.push(authDb, platformDb);
    const redis = await createTestRedis();
    env = {
      ...shellEnvironment(),
      PATH: [noPnpm, ...path].join(delimiter),
      HOST: '127.0.0.1',
      ...mysqlVariables(authDb.settings),
      AUTH_PORT: String(authPort),
      AUTH_MYSQL_DATABASE: authDb.settings.database,
      AUTH_REDIS_URL: redis.url,
      PLATFORM_PORT: String(platformPort),
      PLATFORM_MYSQL_DATABASE: platformDb.settings.database,
    };
    // A copied .env: below the environment (AUTH_PORT wins over its PORT).
    writeFileSync(join(clone, 'services/auth/.env'), 'TOKEN_TTL=1234\nPORT=1\n');
    auth = `http://127.0.0.1:${authPort}`;
    platform = `http://127.0.0.1:${platformPort}`;
  }, 120_000);

  afterAll(async () => {
    // The services run in process groups of their own: only the runner's Ctrl-C reaches them.
    const stopped = current?.interrupt();
    if (stopped && (await Promise.race([stopped, delay(20_000).then(() => 'late')])) === 'late') {
      current?.kill();
    }
    await current?.exited;
    await Promise.all(databases.map((db) => db.drop()));
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('sets up everything, then serves both with the demo data, and says where', async () => {
    const started = Date.now();
    current = runStart(clone, env);
    await ready([auth, platform], started + 600_000, current.output);
    console.log(`./run start on a clean clone: both services ready in ${Date.now() - started} ms`);
    const output = current.output();

    // It brought its own pnpm, and the Node we ship unless the machine's is that one.
    const { packageManager } = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8'));
    expect(existsSync(join(clone, `.cache/${packageManager.replace('@', '-')}`))).toBe(true);
    const { stdout: machineNode } = await run('node', ['-p', 'process.versions.node'], { env });
    const shipped = readFileSync(join(clone, '.node-version'), 'utf8').trim();
    if (machineNode.split('.')[0] !== shipped) {
      expect(
        readdirSync(join(clone, '.cache')).some((dir) => dir.startsWith(`node-${shipped}-`)),
      ).toBe(true);
    }
    for (const [service, url] of [
      ['auth', auth],
      ['platform', platform],
    ] as const) {
      const messages = logEntries(labelledLinesOf(output, service)).map((entry) => entry.msg);
      expect(messages).toContain(
        `${service} listening on ${url} (docs ${url}/docs, metrics ${url}/metrics)`,
      );
    }
    const login = await fetch(`${auth}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'demo', password: 'demo-pass-1' }),
    });
    expect(await login.json()).toMatchObject({ code: 200, data: { expiresIn: 1234 } });
    const merchants = (await (await fetch(`${platform}/api/merchant/list`)).json()) as {
      data: { name: string }[];
    };
    expect(merchants.data.map((row) => row.name)).toEqual(
      expect.arrayContaining(['张三家政', '李四维修', '王五家政']),
    );

    expect(await current.interrupt()).toBe(0);
  }, 660_000);

  it('starts again with nothing changed, ready within 10 s, rebuilding and re-adding nothing', async () => {
    const built = join(clone, 'services/auth/dist/main.js');
    const builtAt = statSync(built).mtimeMs;
    const started = Date.now();
    current = runStart(clone, env);
    await ready([auth, platform], started + 30_000, current.output);
    const readyIn = Date.now() - started;
    const output = current.output();
    console.log(`./run start again, nothing changed: both services ready in ${readyIn} ms`);

    expect(readyIn, output).toBeLessThan(10_000);
    expect(statSync(built).mtimeMs).toBe(builtAt);
    expect(output).not.toContain('migration applied');
    const seeded = logEntries(labelledLinesOf(output, 'platform')).find(
      (entry) => 'added' in entry,
    );
    expect(seeded?.added).toEqual({ merchants: 0, services: 0, orders: 0 });
    expect(logEntries(labelledLinesOf(output, 'auth')).map((entry) => entry.msg)).toContain(
      'demo user demo was already there',
    );
    expect(await current.interrupt()).toBe(0);
  }, 60_000);
});
