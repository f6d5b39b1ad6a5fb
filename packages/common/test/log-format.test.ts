import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { freePort } from '@svc/test-kit';
import { afterEach, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const fixture = join(import.meta.dirname, 'fixtures', 'logging-service.ts');

interface Running {
  url: string;
  /** Everything written so far, colours and carriage returns removed. */
  output(): string;
  stop(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * The fixture service with its stdout on a real terminal (a pseudo-terminal that
 * util-linux `script` opens) or on a pipe, as a log collector or container has it.
 */
async function startFixture(stdout: 'terminal' | 'pipe', env: Record<string, string>) {
  const port = await freePort();
  const node = [process.execPath, '--conditions=source', '--import', 'tsx', fixture];
  const [command, args] =
    stdout === 'terminal'
      ? ['script', ['--quiet', '--return', '--command', node.map(quote).join(' '), '/dev/null']]
      : [node[0] as string, node.slice(1)];
  const child: ChildProcess = spawn(command, args, {
    cwd: root,
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // On a terminal the service is script's child: stopped itself, it ends script without a word.
  const service = () =>
    stdout === 'terminal'
      ? Number(execFileSync('pgrep', ['--parent', String(child.pid)], { encoding: 'utf8' }))
      : (child.pid as number);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(service(), 'SIGTERM');
    await exited;
  };
  cleanups.push(stop);
  const running: Running = {
    url: `http://127.0.0.1:${port}`,
    output: () => stripVTControlCharacters(output).replace(/\r/g, ''),
    stop,
  };
  await expect
    .poll(
      () =>
        fetch(`${running.url}/burst?n=0`).then(
          (res) => res.ok,
          () => false,
        ),
      {
        timeout: 30_000,
        interval: 100,
      },
    )
    .toBe(true);
  return running;
}

/** Requests whose lines the checks below read: one with credentials, one that logs secrets. */
async function exercise(service: Running): Promise<string> {
  await fetch(`${service.url}/burst?n=1`, {
    headers: { authorization: 'Bearer secret-bearer-value', 'x-request-id': 'format-1' },
  });
  await fetch(`${service.url}/secrets`, { headers: { 'x-request-id': 'format-2' } });
  await expect.poll(() => service.output()).toContain('format-2');
  await service.stop();
  return service.output();
}

const SECRETS = ['secret-bearer-value', 'secret-token-value', 'secret-password'];

describe('LOG_FORMAT', () => {
  it.each([
    ['auto', 'terminal'],
    ['pretty', 'pipe'],
  ] as const)(
    '%s on a %s: readable lines, one per entry, secrets censored',
    async (format, stdout) => {
      const service = await startFixture(stdout, { LOG_FORMAT: format });
      const output = await exercise(service);
      const lines = output.split('\n').filter(Boolean);
      expect(lines.filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
      const time = String.raw`\[\d\d:\d\d:\d\d\.\d{3}\]`;
      const at = service.url;
      expect(output).toMatch(
        new RegExp(
          `^${time} INFO \\(fixture\\): fixture listening on ${at} \\(docs ${at}/docs, metrics off\\)$`,
          'm',
        ),
      );
      expect(output).toMatch(
        new RegExp(
          `^${time} INFO \\(fixture\\): GET /burst\\?n=1 200 \\d+ ms \\[format-1\\]$`,
          'm',
        ),
      );
      expect(output).toMatch(
        new RegExp(
          `^${time} INFO \\(fixture\\): secrets \\[format-2\\] {"token":"\\[redacted\\]","user":{"password":"\\[redacted\\]"}}$`,
          'm',
        ),
      );
      for (const secret of SECRETS) expect(output).not.toContain(secret);
    },
  );

  it.each([
    ['auto', 'pipe'],
    ['json', 'terminal'],
  ] as const)('%s on a %s: JSON lines, secrets censored', async (format, stdout) => {
    const service = await startFixture(stdout, { LOG_FORMAT: format });
    const output = await exercise(service);
    const entries = output
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.map((entry) => entry.msg)).toEqual(
      expect.arrayContaining([
        `fixture listening on ${service.url} (docs ${service.url}/docs, metrics off)`,
        'request completed',
        'secrets',
      ]),
    );
    for (const secret of SECRETS) expect(output).not.toContain(secret);
  });
});
