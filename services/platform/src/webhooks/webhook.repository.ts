import { NotFoundError } from '@svc/common';
import type { PlatformDatabase } from '../store/database.js';
import type { EventType } from '../store/events/outbox.js';

/** A webhook as the routes show it (never its secret, but once, when it is made). */
interface Webhook {
  id: number;
  url: string;
  /** The types it receives; null for every type. */
  types: EventType[] | null;
  createdAt: string;
}

/** A webhook with what a delivery needs. */
export interface Receiver {
  id: number;
  url: string;
  secret: string;
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

const WEBHOOK_COLUMNS = `id, url, types, DATE_FORMAT(create_time, '%Y-%m-%dT%H:%i:%s.000Z') AS createdAt`;
const DELIVERY_COLUMNS = `d.id, d.event_id AS eventId, e.type AS eventType, d.status, d.attempts,
  DATE_FORMAT(d.last_attempt_at, '%Y-%m-%dT%H:%i:%s.%fZ') AS lastAttemptAt,
  DATE_FORMAT(d.next_attempt_at, '%Y-%m-%dT%H:%i:%s.%fZ') AS nextAttemptAt,
  d.response_status AS responseStatus, d.error`;

const webhookOf = (row: Omit<Webhook, 'types'> & { types: string | null }): Webhook => ({
  ...row,
  types: row.types === null ? null : (row.types.split(',') as EventType[]),
});

/** Microseconds to milliseconds, as every other time of the API: `…04.123456Z` → `…04.123Z`. */
const millis = (time: string | null) => (time === null ? null : `${time.slice(0, 23)}Z`);

/** The webhooks (table webhooks) and their deliveries (webhook_deliveries; publish.ts writes them). */
export function webhookRepository(db: PlatformDatabase) {
  async function mustExist(id: number): Promise<void> {
    const [row] = await db.select('SELECT 1 FROM webhooks WHERE id = ?', [id]);
    if (!row) throw new NotFoundError('webhook', id);
  }

  return {
    async add(url: string, types: EventType[] | null, secret: string): Promise<Webhook> {
      const id = await db.insert('INSERT INTO webhooks (url, types, secret) VALUES (?, ?, ?)', [
        url,
        types?.join(',') ?? null,
        secret,
      ]);
      const [row] = await db.select<Webhook & { types: string | null }>(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`,
        [id],
      );
      return webhookOf(row as Webhook & { types: string | null });
    },

    async list(): Promise<Webhook[]> {
      const rows = await db.select<Webhook & { types: string | null }>(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY id`,
      );
      return rows.map(webhookOf);
    },

    /** Deletes the webhook and its deliveries; a NotFoundError when no webhook has the id. */
    async remove(id: number): Promise<void> {
      if ((await db.update('DELETE FROM webhooks WHERE id = ?', [id])) === 0) {
        throw new NotFoundError('webhook', id);
      }
    },

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

    /** Webhooks with a delivery due now. */
    receiversDue(): Promise<Receiver[]> {
      return db.select<Receiver>(
        `SELECT w.id, w.url, w.secret FROM webhooks w WHERE EXISTS (
           SELECT 1 FROM webhook_deliveries d
           WHERE d.webhook_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= NOW(3))`,
      );
    },

    /**
     * Claims up to `limit` of the webhook's due deliveries for one attempt
     * each: rows another instance is claiming are skipped (FOR UPDATE SKIP
     * LOCKED), and a claimed row is due again only after `leaseSeconds`, so no
     * other instance makes the same attempt meanwhile; an instance that dies
     * mid-attempt leaves it to the others after that.
     */
    claim(webhookId: number, limit: number, leaseSeconds: number): Promise<Claimed[]> {
      return db.readCommitted(async (run) => {
        const rows = await run<{ id: number; event_id: number; attempts: number }[]>(
          `SELECT id, event_id, attempts FROM webhook_deliveries
           WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at <= NOW(3)
           ORDER BY next_attempt_at, event_id LIMIT ? FOR UPDATE SKIP LOCKED`,
          [webhookId, limit],
        );
        if (rows.length === 0) return [];
        await run(
          `UPDATE webhook_deliveries
           SET attempts = attempts + 1, last_attempt_at = NOW(3), next_attempt_at = NOW(3) + INTERVAL ? SECOND
           WHERE id IN (${rows.map(() => '?').join(', ')})`,
          [leaseSeconds, ...rows.map((row) => row.id)],
        );
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

export type WebhookRepository = ReturnType<typeof webhookRepository>;
