import { join } from 'node:path';
import { type MainProcess, startMain } from '@svc/test-kit';

const root = join(import.meta.dirname, '..', '..', '..');

export type ServiceProcess = MainProcess;

/** Runs a service's real main (from its TypeScript sources) as its own process on a free port. */
export function startService(
  name: 'auth' | 'platform',
  env: Record<string, string>,
): Promise<ServiceProcess> {
  return startMain(join(root, `services/${name}/src/main.ts`), env, root);
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
