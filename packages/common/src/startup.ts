import { StoreUnreachableError } from './app-error.js';
import { ConfigError } from './config.js';

/**
 * Runs a service's start-up. A bad environment or an unreachable store ends the
 * process with its one-line explanation instead of a stack trace.
 */
export async function runService(name: string, start: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (err) {
    if (err instanceof ConfigError || err instanceof StoreUnreachableError) {
      process.stderr.write(`${name}: ${err.message}\n`);
    } else {
      process.stderr.write(`${name}: start-up failed: ${(err as Error)?.stack ?? String(err)}\n`);
    }
    process.exit(1);
  }
}
