import type { Logger } from '@svc/common';
import type { EventRetention } from './event-retention.js';

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Deletes the events older than EVENT_RETENTION_DAYS and no longer owed to a
 * webhook in the background, every minute, in statements of a thousand rows
 * (see event-retention.ts). Every instance sweeps; a sweep that finds nothing
 * costs a few index probes. Returns the function that stops it.
 */
export function sweepOldEvents(
  retention: EventRetention,
  days: number,
  logger: Logger,
): () => void {
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      const removed = await retention.sweep(days);
      if (removed > 0) logger.info({ removed, days }, 'events past their retention deleted');
    } catch (err) {
      logger.warn({ err }, 'old events not deleted, trying again later');
    } finally {
      sweeping = false;
    }
  };
  const timer = setInterval(sweep, SWEEP_INTERVAL_MS);
  timer.unref();
  void sweep();
  return () => clearInterval(timer);
}
