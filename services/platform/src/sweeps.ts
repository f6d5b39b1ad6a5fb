import type { Logger } from '@svc/common';
import { every } from './every.js';
import { keptKeys } from './idempotency/kept-keys.js';
import type { PlatformDatabase } from './store/database.js';
import { eventRetention } from './webhooks/event-retention.js';

const RETENTION_SWEEP_MS = 60_000;

/**
 * The background deletions every instance runs: expired Idempotency-Keys
 * every half TTL (1 to 30 s), so a key is gone within a minute of its expiry,
 * and every minute the events past EVENT_RETENTION_DAYS that nothing owes
 * (webhooks/event-retention.ts), nor the JetStream relay. A sweep that finds nothing costs a few index
 * probes. Returns what stops both.
 */
export function startSweeps(
  db: PlatformDatabase,
  {
    ttlSeconds,
    retentionDays,
    relayStream,
    logger,
  }: { ttlSeconds: number; retentionDays: number; relayStream?: string; logger: Logger },
): () => Promise<unknown> {
  const keys = keptKeys(db, ttlSeconds);
  const retention = eventRetention(db, { relayStream });
  const keysMs = Math.min(30_000, Math.max(1000, ttlSeconds * 500));
  const sweeps = [
    every(
      keysMs,
      async () => {
        const removed = await keys.sweep();
        if (removed > 0) logger.debug({ removed }, 'expired idempotency keys deleted');
      },
      { logger, what: 'idempotency keys: deleting the expired', firstMs: keysMs },
    ),
    every(
      RETENTION_SWEEP_MS,
      async () => {
        const removed = await retention.sweep(retentionDays);
        if (removed > 0)
          logger.info({ removed, days: retentionDays }, 'events past their retention deleted');
      },
      { logger, what: 'events: deleting those past their retention' },
    ),
  ];
  return () => Promise.all(sweeps.map((sweep) => sweep.stop()));
}
