import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@svc/test-kit';

const root = join(import.meta.dirname, '..', '..', '..');

export interface ServiceProcess {
  url: string;
  pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/** Runs a service's real main (from its TypeScript sources) as its own process on a free port. */
export async function startService(
  name: 'auth' | 'platform',
  env: Record<string, string>,
): Promise<ServiceProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', join(root, `services/${name}/src/main.ts`)],
    {
      cwd: root,
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited early:\n${output}`);
    const up = await fetch(`${url}/healthz`)
      .then((res) => res.ok)
      .catch(() => false);
    if (up) break;
    if (Date.now() > deadline) throw new Error(`${name} did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid as number,
    output: () => output,
    exited,
    signal: (signal) => child.kill(signal),
    async stop() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The log lines a service wrote, parsed (lines that are not JSON are skipped). */
export function logEntries(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** What one service wrote through the root scripts (`pnpm start`, `./run start`), without their `<service> | ` labels. */
export function labelledLinesOf(output: string, service: string): string {
  const label = `${service} | `;
  return output
    .split('\n')
    .filter((line) => line.startsWith(label))
    .map((line) => line.slice(label.length))
    .join('\n');
}
