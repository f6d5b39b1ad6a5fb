import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createTestDatabase,
  freePort,
  mysqlVariables,
  startRedisServer,
  type TestServer,
} from '@svc/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, register } from './support/auth-client.js';
import { type ServiceProcess, startService } from './support/service-process.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

const APP = `
import express from 'express';
import { Redis } from 'ioredis';
import { createGuard, createUserSessions } from '@svc/session-guard';

const redis = new Redis(process.env.REDIS_URL, { maxRetriesPerRequest: 0, commandTimeout: 500 });
redis.on('error', () => {});
const guard = createGuard({ redis });
const sessions = createUserSessions({ redis });
const app = express();
app.get('/api/comment/list', guard, (req, res) => {
  res.json({ user: req.user, token: req.token });
});
app.get('/my/sessions', guard, async (req, res) => {
  res.json(await sessions.list(req.user.username, req.token));
});
app.delete('/my/sessions', guard, async (req, res) => {
  res.json({ ended: await sessions.endOthers(req.user.username, req.token) });
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
`;

/** The install line of the guard's README: `npm install <repository>/dist/packages/<tarball> ioredis`. */
function readmeInstallLine(): { tarball: string; rest: string[] } {
  const readme = readFileSync(join(root, 'packages/session-guard/README.md'), 'utf8');
  const match = /^npm install \S+\/dist\/packages\/(\S+\.tgz) ([^#\n]+?)\s+#/m.exec(readme);
  if (!match) throw new Error('the guard README has no npm install line for dist/packages/');
  return { tarball: match[1] as string, rest: (match[2] as string).split(/\s+/) };
}

let tarball: string;
let redis: TestServer;
let auth: ServiceProcess;

/*
 * What another team does: `pnpm pack:guard` here, then in a project of its own,
 * outside this repository, the README's npm install line (ioredis with no
 * version: what npm gives today), or the same with ioredis@5; `npm install` of
 * another package afterwards; and the guard mounted on a route. The real auth
 * service issues and revokes the tokens.
 */
beforeAll(async () => {
  const { stdout } = await run('pnpm', ['pack:guard'], { cwd: root });
  tarball = join(root, 'dist/packages', readmeInstallLine().tarball);
  expect(stdout).toContain(tarball);
  redis = await startRedisServer();
  auth = await startService('auth', {
    ...mysqlVariables((await createTestDatabase()).settings),
    REDIS_URL: redis.url,
  });
}, 240_000);

afterAll(async () => {
  await auth?.stop();
  await redis?.destroy();
});

describe.each([
  ["the README's line", readmeInstallLine().rest, '6'],
  ['ioredis@5', ['ioredis@5'], '5'],
])('@svc/session-guard installed from its tarball with npm, %s', (_case, peers, major) => {
  let scratch: string;
  let app: ChildProcess;
  let base: string;
  let secondInstall: { stdout: string; stderr: string };

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'guard-adopter-'));
    const npm = (args: string[]) =>
      run('npm', [...args, '--no-audit', '--no-fund'], {
        cwd: scratch,
        env: { ...process.env, npm_config_engine_strict: 'false' },
      });
    await npm(['init', '-y']);
    await npm(['pkg', 'set', 'type=module']);
    await npm(['install', tarball, ...peers]);
    secondInstall = await npm(['install', 'express@5']);
    writeFileSync(join(scratch, 'app.mjs'), APP);

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = spawn(process.execPath, ['app.mjs'], {
      cwd: scratch,
      env: { ...process.env, REDIS_URL: redis.url, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((resolve) => app.stdout?.once('data', resolve));
  }, 240_000);

  afterAll(async () => {
    app?.kill();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it(`resolves ioredis ${major}.x without a peer conflict, and a second npm install succeeds`, async () => {
    const installed = JSON.parse(
      readFileSync(join(scratch, 'node_modules/ioredis/package.json'), 'utf8'),
    );
    expect(installed.version.split('.')[0]).toBe(major);
    expect(secondInstall.stderr).not.toMatch(/ERESOLVE|peer dep|conflicting peer/i);
    // The optional peer @nestjs/common shows as UNMET OPTIONAL, which is not a problem.
    const { stdout } = await run('npm', ['ls', '--all'], { cwd: scratch });
    expect(stdout).not.toMatch(/\binvalid\b|UNMET (PEER )?DEPENDENCY|extraneous/);
  });

  it('ships compiled code with no runtime dependency, ioredis 5 or 6 as a peer', () => {
    const manifest = JSON.parse(
      readFileSync(join(scratch, 'node_modules/@svc/session-guard/package.json'), 'utf8'),
    );
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies.ioredis).toBe('^5 || ^6');
    expect(manifest.peerDependenciesMeta['@nestjs/common'].optional).toBe(true);
    expect(JSON.stringify(manifest)).not.toContain('workspace:');
    const shipped = readdirSyncDeep(join(scratch, 'node_modules/@svc/session-guard'));
    expect(shipped).toContain('dist/index.js');
    expect(shipped).toContain('dist/nest.js');
    expect(shipped).toContain('README.md');
    expect(shipped.some((file) => file.startsWith('src/') || file.startsWith('test/'))).toBe(false);
  });

  const get = (headers: Record<string, string> = {}, path = '/api/comment/list') =>
    fetch(`${base}${path}`, { headers });

  it('lets a token from the real auth service through, in either header', async () => {
    const username = `adopter_${major}`;
    await register(auth.url, username, 'adopter-pass-1');
    const token = await login(auth.url, username, 'adopter-pass-1');
    for (const headers of <Record<string, string>[]>[
      { authorization: `Bearer ${token}` },
      { token },
    ]) {
      const res = await get(headers);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ user: { username }, token });
    }
  });

  it('answers both 401 messages, and revokes at once after a logout through the auth service', async () => {
    const none = await get();
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ code: 401, message: '未携带Token,请先登录' });

    const token = await login(auth.url, `adopter_${major}`, 'adopter-pass-1');
    expect((await get({ token })).status).toBe(200);
    await call(auth.url, '/api/user/logout', { method: 'POST', token });
    const dead = await get({ token });
    expect(dead.status).toBe(401);
    expect(await dead.json()).toEqual({ code: 401, message: 'Token无效或已过期,请重新登录' });
  });

  it("lists and ends the auth service's sessions with createUserSessions", async () => {
    const phone = await login(auth.url, `adopter_${major}`, 'adopter-pass-1');
    const laptop = await login(auth.url, `adopter_${major}`, 'adopter-pass-1');
    const listed = await get({ token: laptop }, '/my/sessions');
    expect(listed.status).toBe(200);
    const mine = (await listed.json()) as { current: boolean; ip: string }[];
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(mine.filter((session) => session.current)).toHaveLength(1);

    const ended = await fetch(`${base}/my/sessions`, {
      method: 'DELETE',
      headers: { token: laptop },
    });
    expect(await ended.json()).toEqual({ ended: mine.length - 1 });
    expect((await call(auth.url, '/api/user/me', { token: phone })).status).toBe(401);
    expect((await get({ token: phone })).status).toBe(401);
    expect((await call(auth.url, '/api/user/me', { token: laptop })).status).toBe(200);
  });

  it('answers 503 while Redis is down', async () => {
    const token = await login(auth.url, `adopter_${major}`, 'adopter-pass-1');
    await redis.stop();
    try {
      const res = await get({ token });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ code: 503, message: '服务暂不可用,请稍后重试' });
    } finally {
      await redis.start();
      // The auth service serves the next case's logins once it is back on Redis.
      await expect
        .poll(() => fetch(`${auth.url}/readyz`).then((res) => res.status), { timeout: 10_000 })
        .toBe(200);
    }
  });
});

function readdirSyncDeep(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory()
      ? readdirSyncDeep(path, `${prefix}${name}/`)
      : [`${prefix}${name}`];
  });
}
