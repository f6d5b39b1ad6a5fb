import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './servers.js';

export interface MainProcess {
  url: string;
  pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/**
 * Runs a service's real main.ts (from its TypeScript sources) as its own
 * process on a free port, as an operator starts it, and resolves once it
 * answers /healthz.
 */
export async function startMain(
  mainPath: string,
  env: Record<string, string>,
  cwd?: string,
): Promise<MainProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', mainPath],
    {
      cwd,
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
    if (child.exitCode !== null) throw new Error(`${mainPath} exited early:\n${output}`);
    const up = await fetch(`${url}/healthz`)
      .then((res) => res.ok)
      .catch(() => false);
    if (up) break;
    if (Date.now() > deadline) throw new Error(`${mainPath} did not start:\n${output}`);
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
