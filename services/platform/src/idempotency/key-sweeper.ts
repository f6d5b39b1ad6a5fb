import type { Logger } from '@svc/common';
import type { KeptKeys } from '../db/kept-keys.js';

/**
 * Deletes expired Idempotency-Keys in the background, so the table holds only
 * keys still in force: every half TTL, between 1 and 30 seconds, which removes
 * a key within 60 seconds of its expiry. Every instance sweeps; a DELETE that
 * finds nothing costs one index probe. Returns the function that stops it.
 */
export function sweepExpiredKeys(
  keys: Pick<KeptKeys, 'sweep'>,
  ttlSeconds: number,
  logger: Logger,
): () => void {
  const intervalMs = Math.min(30_000, Math.max(1000, ttlSeconds * 500));
  let sweeping = false;
  const timer = setInterval(async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      const removed = await keys.sweep();
      if (removed > 0) logger.debug({ removed }, 'expired idempotency keys deleted');
    } catch (err) {
      logger.warn({ err }, 'expired idempotency keys not deleted, trying again later');
    } finally {
      sweeping = false;
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
