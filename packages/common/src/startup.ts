import { ConfigError } from './config.js';
import { StoreUnreachableError } from './errors.js';
import { ListenError } from './listen.js';

/**
 * Runs a service's start-up. A bad environment, an unreachable store or a port
 * that cannot be bound ends the process at once, non-zero, with its one-line
 * explanation instead of a stack trace.
 */
export async function runService(name: string, start: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (err) {
    if (
      err instanceof ConfigError ||
      err instanceof StoreUnreachableError ||
      err instanceof ListenError
    ) {
      process.stderr.write(`${name}: ${err.message}\n`);
    } else {
      process.stderr.write(`${name}: start-up failed: ${(err as Error)?.stack ?? String(err)}\n`);
    }
    process.exit(1);
  }
}
