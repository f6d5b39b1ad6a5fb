import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@svc/test-kit';
import { afterEach, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const fixture = join(import.meta.dirname, 'fixtures', 'logging-service.ts');

interface Running {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  lines(): Promise<Record<string, unknown>[]>;
  stderr(): string;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The fixture service as its own process, its stdout going to a file as a log collector takes it. */
async function startFixture(): Promise<Running> {
  const dir = await mkdtemp(join(tmpdir(), 'log-flush-'));
  const file = join(dir, 'stdout.log');
  const port = await freePort();
  const out = openSync(file, 'a');
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', fixture], {
    cwd: root,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', out, 'pipe'],
  });
  closeSync(out);
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await rm(dir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the fixture exited early:\n${stderr}`);
    const up = await fetch(`${url}/healthz`)
      .then((res) => res.ok)
      .catch(() => false);
    if (up) break;
    if (Date.now() > deadline) throw new Error(`the fixture did not start:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    exited,
    stderr: () => stderr,
    lines: async () =>
      (await readFile(file, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const BURST = 5000;

describe('the shipped log destination', () => {
  it('has every line in the file after a graceful stop, the last requests and "stopped" included', async () => {
    const service = await startFixture();
    const ids = Array.from({ length: 20 }, (_, i) => `flush-${i}`);
    for (const id of ids) {
      await fetch(`${service.url}/burst?n=${BURST / ids.length}`, {
        headers: { 'x-request-id': id },
      }).then((res) => res.arrayBuffer());
    }
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    const lines = await service.lines();
    const completed = new Set(
      lines.filter((line) => line.msg === 'request completed').map((line) => line.reqId),
    );
    for (const id of ids) expect(completed.has(id), id).toBe(true);
    expect(lines.filter((line) => line.msg === 'burst line')).toHaveLength(BURST);
    expect(lines.at(-1)?.msg).toBe('stopped');
  });

  it('has the lines of answered requests in the file with no stop: a SIGKILL then loses none', async () => {
    const service = await startFixture();
    await fetch(`${service.url}/burst?n=${BURST}`, { headers: { 'x-request-id': 'kill-1' } }).then(
      (res) => res.arrayBuffer(),
    );
    // A later request, answered in a later event-loop turn than the burst's.
    await fetch(`${service.url}/healthz`).then((res) => res.arrayBuffer());
    service.child.kill('SIGKILL');
    await service.exited;
    const lines = await service.lines();
    expect(lines.filter((line) => line.msg === 'burst line')).toHaveLength(BURST);
    expect(lines.some((line) => line.msg === 'request completed' && line.reqId === 'kill-1')).toBe(
      true,
    );
  });

  it('has every line logged before an uncaught exception in the file, the process exiting non-zero', async () => {
    const service = await startFixture();
    await fetch(`${service.url}/crash?n=${BURST}`, { headers: { 'x-request-id': 'crash-1' } }).then(
      (res) => res.arrayBuffer(),
    );
    expect(await service.exited).not.toBe(0);
    expect(service.stderr()).toContain('fixture crash');
    const lines = await service.lines();
    expect(lines.filter((line) => line.msg === 'burst line')).toHaveLength(BURST);
    expect(lines.some((line) => line.msg === 'request completed' && line.reqId === 'crash-1')).toBe(
      true,
    );
    expect(lines.at(-1)?.msg).toBe('last line before the crash');
  });
});
