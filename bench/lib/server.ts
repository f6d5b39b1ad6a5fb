import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@svc/test-kit';

export const repoRoot = join(import.meta.dirname, '..', '..');

export interface RunningServer {
  url: string;
  /**
   * Waits until `path` answers quickly three times in a row: the work a load
   * left queued (a pool's waiting queries) must not be billed to the next one.
   */
  settle(path?: string): Promise<void>;
  /** Highest resident set size seen since start or the last reset, in MiB. */
  peakRssMb(): number;
  /** CPU time (user and system) the process has spent since it started, in seconds. */
  cpuSeconds(): Promise<number>;
  resetPeak(): void;
  stop(): Promise<void>;
}

/** Reads a CPU counter (seconds) now; the function it gives reads what was spent since. */
export async function spentSince(counter: () => Promise<number>): Promise<() => Promise<number>> {
  const before = await counter();
  return async () => (await counter()) - before;
}

/** CPU time (user and system) a process has spent since it started, in seconds (/proc). */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** The configuration users run: the shipped defaults, with the log going to a file. */
export const SHIPPED_DEFAULTS = 'defaults: LOG_LEVEL=info to a file, metrics on';

/**
 * Starts a Node process (built JS, or TypeScript through tsx), waits until
 * `readyPath` answers 200 and samples its memory every 50 ms until stopped.
 * Each server gets a free port, so no leftover process can answer in its place.
 * Nothing of the shipped configuration is changed unless `env` says so: the
 * log level stays `info`, and stdout goes to a file, as a deployment's log
 * collector would take it (never a terminal, never /dev/null).
 */
export async function startServer(options: {
  script: string;
  env?: Record<string, string>;
  readyPath?: string;
  typescript?: boolean;
}): Promise<RunningServer> {
  const port = await freePort();
  const args = options.typescript
    ? ['--conditions=source', '--import', 'tsx', options.script]
    : [options.script];
  const logFile = join(await mkdtemp(join(tmpdir(), 'bench-log-')), 'stdout.log');
  const { LOG_LEVEL: _ignored, METRICS_ENABLED: _also, ...environment } = process.env;
  const log = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...environment, HOST: '127.0.0.1', PORT: String(port), ...options.env },
    stdio: ['ignore', log, 'inherit'],
  });
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.script} exited with ${child.exitCode}`);
    const ok = await fetch(url + (options.readyPath ?? '/healthz'))
      .then((res) => res.ok)
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`${options.script} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  let peak = 0;
  const sample = () => {
    if (child.pid === undefined || child.exitCode !== null) return;
    rssMb(child.pid)
      .then((mb) => {
        peak = Math.max(peak, mb);
      })
      .catch(() => {});
  };
  sample();
  const sampler = setInterval(sample, 50);
  return {
    url,
    async settle(path = options.readyPath ?? '/healthz') {
      const deadline = Date.now() + 60_000;
      let quick = 0;
      while (quick < 3 && Date.now() < deadline) {
        const started = performance.now();
        await fetch(url + path).then((res) => res.arrayBuffer());
        quick = performance.now() - started < 50 ? quick + 1 : 0;
        if (quick === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    peakRssMb: () => Math.round(peak * 10) / 10,
    cpuSeconds: () => cpuSeconds(child.pid as number),
    resetPeak: () => {
      peak = 0;
      sample();
    },
    async stop() {
      clearInterval(sampler);
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
