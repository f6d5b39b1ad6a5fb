import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

const STARTUP_TIMEOUT_MS = 20_000;

/** A database server process of the test's own, on a loopback port. */
export interface TestServer {
  readonly port: number;
  readonly url: string;
  /** The running process's id (undefined while stopped). */
  readonly pid: number | undefined;
  /** Starts the process again on the same port and data directory. */
  start(): Promise<void>;
  /** Stops the process; its data directory stays for a later start. */
  stop(): Promise<void>;
  /** Ends the process at once (SIGKILL), as a crash would; its data directory stays. */
  kill(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections hang as with a stuck server. */
  pause(): void;
  resume(): void;
  /** Stops the process and removes its data directory. */
  destroy(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function scratchDir(name: string): Promise<string> {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  return mkdtemp(join(base, `${name}-`));
}

async function waitUntil(ready: () => Promise<unknown>, what: string, child: ChildProcess) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}`);
    try {
      await ready();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what} did not start: ${String(err)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export function managed(
  port: number,
  url: string,
  dir: string,
  launch: () => ChildProcess,
  ready: () => Promise<unknown>,
  what: string,
): TestServer {
  let child: ChildProcess | undefined;
  const killOnExit = () => child?.kill('SIGKILL');
  const halt = async (signal: NodeJS.Signals) => {
    const current = child;
    child = undefined;
    process.off('exit', killOnExit);
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGCONT');
    current.kill(signal);
    const timer = setTimeout(() => current.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const server: TestServer = {
    port,
    url,
    get pid() {
      return child?.pid;
    },
    async start() {
      child = launch();
      process.once('exit', killOnExit);
      await waitUntil(ready, what, child);
    },
    stop: () => halt('SIGTERM'),
    kill: () => halt('SIGKILL'),
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async destroy() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return server;
}

/** One command to the Redis on this loopback port, on a connection of its own. */
export async function askRedis(port: number, ...args: string[]): Promise<unknown> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.call(args[0] as string, ...args.slice(1));
  } finally {
    client.disconnect();
  }
}

/**
 * Starts a throwaway redis-server with many databases. It keeps nothing across
 * a stop unless `persistent`, which writes every command to an append-only file.
 */
export async function startRedisServer(
  options: { persistent?: boolean } = {},
): Promise<TestServer> {
  const port = await freePort();
  const dir = await scratchDir('redis-test');
  const persistence = options.persistent
    ? ['--appendonly', 'yes', '--appendfsync', 'always']
    : ['--appendonly', 'no'];
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence];
  args.push('--databases', '1024', '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning');
  const server = managed(
    port,
    `redis://127.0.0.1:${port}`,
    dir,
    () => spawn('redis-server', args, { stdio: 'ignore' }),
    () => askRedis(port, 'PING'),
    'redis-server',
  );
  await server.start();
  return server;
}

interface MainResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a service's main.ts from its sources to its exit (bounded at 15 s), as an operator would start it. */
export function runMain(mainPath: string, env: Record<string, string>): Promise<MainResult> {
  return new Promise((resolve) => {
    const started = Date.now();
    execFile(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', mainPath],
      { env: { ...process.env, ...env }, timeout: 15_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (error.code as number) : 0,
          stdout,
          stderr,
          ms: Date.now() - started,
        });
      },
    );
  });
}
