import { NotFoundError } from '@svc/common';
import type { PlatformDatabase } from '../store/database.js';

/** A webhook with what a delivery needs. */
export interface Receiver {
  id: number;
  url: string;
  secret: string;
  /** The secret before the last rotation, while it still signs (WEBHOOK_OLD_SECRET_HOURS). */
  previousSecret: string | null;
  rateLimit: number | null;
  /** Seconds since the first failed attempt after the last delivered one; null while it delivers. */
  failingFor: number | null;
}

/** One delivery attempt claimed: the delivery, its webhook and its event's id. */
export interface Claimed {
  id: number;
  eventId: number;
  /** Attempts made, this one included. */
  attempt: number;
}

const STATUSES = ['pending', 'delivered', 'failed'] as const;
type DeliveryStatus = (typeof STATUSES)[number];

const DELIVERY_COLUMNS = `d.id, d.event_id AS eventId, e.type AS eventType, d.status, d.attempts,
  DATE_FORMAT(d.last_attempt_at, '%Y-%m-%dT%H:%i:%s.%fZ') AS lastAttemptAt,
  DATE_FORMAT(d.next_attempt_at, '%Y-%m-%dT%H:%i:%s.%fZ') AS nextAttemptAt,
  d.response_status AS responseStatus, d.error`;

/** Microseconds to milliseconds, as every other time of the API: `…04.123456Z` → `…04.123Z`. */
const millis = (time: string | null) => (time === null ? null : `${time.slice(0, 23)}Z`);

/**
 * The webhooks' deliveries (table webhook_deliveries; the publish step's
 * fan-out writes them, deliveries.ts): listed and retried for the routes,
 * claimed and recorded for the deliverer.
 */
export function deliveryRepository(db: PlatformDatabase) {
  async function mustExist(id: number): Promise<void> {
    const [row] = await db.select('SELECT 1 FROM webhooks WHERE id = ?', [id]);
    if (!row) throw new NotFoundError('webhook', id);
  }

  return {
    /** The webhook's deliveries, newest event first, of one status when given. */
    async deliveries(id: number, status: DeliveryStatus | undefined, limit: number) {
      await mustExist(id);
      const rows = await db.select<{ lastAttemptAt: string | null; nextAttemptAt: string }>(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d LEFT JOIN events e ON e.id = d.event_id
         WHERE d.webhook_id = ?${status ? ' AND d.status = ?' : ''} ORDER BY d.event_id DESC LIMIT ?`,
        [id, ...(status ? [status] : []), limit],
      );
      return rows.map((row) => ({
        ...row,
        eventId: String((row as unknown as { eventId: number }).eventId),
        lastAttemptAt: millis(row.lastAttemptAt),
        nextAttemptAt: millis(row.nextAttemptAt),
      }));
    },

    /** Makes the webhook's failed deliveries pending again, due now, with their attempts counted afresh. */
    async retryFailed(id: number): Promise<number> {
      await mustExist(id);
      return db.update(
        `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = NOW(3)
         WHERE webhook_id = ? AND status = 'failed'`,
        [id],
      );
    },

    /** Enabled webhooks with a delivery due now. */
    receiversDue(): Promise<Receiver[]> {
      return db.select<Receiver>(
        `SELECT w.id, w.url, w.secret,
           IF(w.previous_secret_until > NOW(3), w.previous_secret, NULL) AS previousSecret,
           w.rate_limit AS rateLimit,
           TIMESTAMPDIFF(MICROSECOND, w.failing_since, NOW(3)) / 1e6 AS failingFor
         FROM webhooks w WHERE w.disabled_at IS NULL AND EXISTS (
           SELECT 1 FROM webhook_deliveries d
           WHERE d.webhook_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= NOW(3))`,
      );
    },

    /**
     * Claims up to `limit` of the webhook's due deliveries for one attempt
     * each: rows another instance is claiming are skipped (FOR UPDATE SKIP
     * LOCKED), and a claimed row is due again only after `leaseSeconds`, so no
     * other instance makes the same attempt meanwhile; an instance that dies
     * mid-attempt leaves it to the others after that. With a `rateLimit`, at
     * most what its bucket holds: it fills at that many a second up to that
     * many, and is the webhook row's, so every instance draws on one bucket.
     */
    claim(
      webhookId: number,
      limit: number,
      leaseSeconds: number,
      rateLimit: number | null,
    ): Promise<Claimed[]> {
      return db.readCommitted(async (run) => {
        let allowed = limit;
        if (rateLimit !== null) {
          const [bucket] = await run<{ tokens: number; rate: number | null }[]>(
            `SELECT LEAST(rate_limit, IF(rate_at IS NULL, rate_limit,
               rate_tokens + TIMESTAMPDIFF(MICROSECOND, rate_at, NOW(3)) / 1e6 * rate_limit)) AS tokens,
               rate_limit AS rate FROM webhooks WHERE id = ? FOR UPDATE`,
            [webhookId],
          );
          if (bucket?.rate == null) return [];
          allowed = Math.min(limit, Math.floor(Number(bucket.tokens)));
          if (allowed < 1) return [];
        }
        const rows = await run<{ id: number; event_id: number; attempts: number }[]>(
          `SELECT id, event_id, attempts FROM webhook_deliveries
           WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at <= NOW(3)
           ORDER BY next_attempt_at, event_id LIMIT ? FOR UPDATE SKIP LOCKED`,
          [webhookId, allowed],
        );
        if (rows.length === 0) return [];
        await run(
          `UPDATE webhook_deliveries
           SET attempts = attempts + 1, last_attempt_at = NOW(3), next_attempt_at = NOW(3) + INTERVAL ? SECOND
           WHERE id IN (${rows.map(() => '?').join(', ')})`,
          [leaseSeconds, ...rows.map((row) => row.id)],
        );
        if (rateLimit !== null) {
          await run(
            `UPDATE webhooks SET rate_tokens = LEAST(rate_limit, IF(rate_at IS NULL, rate_limit,
               rate_tokens + TIMESTAMPDIFF(MICROSECOND, rate_at, NOW(3)) / 1e6 * rate_limit)) - ?,
               rate_at = NOW(3) WHERE id = ?`,
            [rows.length, webhookId],
          );
        }
        return rows.map((row) => ({
          id: Number(row.id),
          eventId: Number(row.event_id),
          attempt: row.attempts + 1,
        }));
      });
    },

    /** Deliveries whose receiver answered `responseStatus` (a 2xx): one statement for a claim's worth. */
    async delivered(ids: number[], responseStatus: number): Promise<void> {
      await db.update(
        `UPDATE webhook_deliveries SET status = 'delivered', response_status = ?, error = NULL
         WHERE id IN (${ids.map(() => '?').join(', ')})`,
        [responseStatus, ...ids],
      );
    },

    /**
     * An attempt that failed: pending again after `retryInSeconds`, or failed
     * for good, its next_attempt_at then the time it failed, from which
     * retention keeps it EVENT_RETENTION_DAYS (event-retention.ts).
     */
    async record(
      id: number,
      outcome: {
        status: DeliveryStatus;
        responseStatus?: number;
        error?: string;
        retryInSeconds?: number;
      },
    ): Promise<void> {
      await db.update(
        `UPDATE webhook_deliveries SET status = ?, response_status = ?, error = ?,
           next_attempt_at = NOW(3) + INTERVAL ? SECOND WHERE id = ?`,
        [
          outcome.status,
          outcome.responseStatus ?? null,
          outcome.error?.slice(0, 255) ?? null,
          outcome.retryInSeconds ?? 0,
          id,
        ],
      );
    },
  };
}
