import type { Logger } from '@svc/common';

/** A task running in the background (every). */
export interface Periodic {
  /** No run after this one; resolves once the run in progress has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `task` in the background, first after `firstMs` and then `ms` after
 * each run ends, so two runs never overlap, until stopped. A run that fails
 * is logged as a warning naming `what`, once until a run succeeds again,
 * which is logged too; the task is simply tried again at its next turn. The
 * timer never holds the process open. Every periodic task of the platform
 * runs this way: publishing, delivering, the stream hub's poll, the sweeps.
 */
export function every(
  ms: number,
  task: () => Promise<unknown>,
  { logger, what, firstMs = 0 }: { logger: Logger; what: string; firstMs?: number },
): Periodic {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let failing = false;

  const schedule = (delay: number) => {
    timer = setTimeout(run, delay);
    timer.unref();
  };
  async function run(): Promise<void> {
    running = task().then(
      () => {
        if (failing) logger.info(`${what}: working again`);
        failing = false;
      },
      (err: unknown) => {
        if (!failing) logger.warn({ err }, `${what} failed, trying again`);
        failing = true;
      },
    );
    await running;
    running = undefined;
    if (!stopped) schedule(ms);
  }

  schedule(firstMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
