import type { Logger } from '@svc/common';
import type { PlatformDatabase } from '../db/database.js';
import type { EventType } from './outbox.js';
import { publishCommitted } from './publish.js';

/** How often each instance looks for committed events to number and publish. */
const PUBLISH_INTERVAL_MS = 50;

/**
 * Runs publish steps (publish.ts): every PUBLISH_INTERVAL_MS in the
 * background once started, and on demand (`now`). Every instance runs one, so
 * the events of an instance that died after its commit are published by the
 * others.
 */
export function eventPublisher(
  db: PlatformDatabase,
  {
    logger,
    onPublished,
  }: { logger: Logger; onPublished?: (counts: Map<EventType, number>) => void },
) {
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;

  async function untilCaughtUp(): Promise<void> {
    for (;;) {
      const step = await publishCommitted(db);
      if (step.published.size > 0) onPublished?.(step.published);
      if (!step.full) return;
    }
  }

  /**
   * Resolves once every event that had committed when it was called is
   * published. A step already running may have looked before that commit, so
   * one more follows it (shared by every caller that arrives meanwhile).
   */
  function now(): Promise<void> {
    if (!running) {
      running = untilCaughtUp().finally(() => {
        running = undefined;
      });
      return running;
    }
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return now();
      });
    return next;
  }

  /** Publishes in the background until the returned function is called (it resolves once the step running ends). */
  function start(): () => Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let failing = false;
    let stopped = false;
    const tick = async () => {
      try {
        await now();
        if (failing) logger.info('events: publishing again');
        failing = false;
      } catch (err) {
        if (!failing) logger.warn({ err }, 'events: publishing failed, retrying');
        failing = true;
      }
      if (!stopped) timer = setTimeout(tick, PUBLISH_INTERVAL_MS);
    };
    timer = setTimeout(tick, 0);
    return async () => {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([running, next]).catch(() => undefined);
    };
  }

  return { now, start };
}

export type EventPublisher = ReturnType<typeof eventPublisher>;
