import { NotFoundError } from '@svc/common';
import type { PlatformDatabase } from '../store/database.js';
import type { EventType } from '../store/events/outbox.js';
import { deliveryRepository } from './delivery.repository.js';
import { webhookRecovery } from './webhook-recovery.js';
import { DISABLED_AT, webhookStanding } from './webhook-standing.js';

/** A webhook as the routes show it (never its secret, but once, when it is made or rotated). */
interface Webhook {
  id: number;
  url: string;
  /** The types it receives; null for every type. */
  types: EventType[] | null;
  /** Deliveries per second at most; null for no limit. */
  rateLimit: number | null;
  /** When it was disabled, and why; null while it is enabled. */
  disabledAt: string | null;
  disabledReason: string | null;
  createdAt: string;
}

const WEBHOOK_COLUMNS = `id, url, types, rate_limit AS rateLimit,
  ${DISABLED_AT} AS disabledAt, disabled_reason AS disabledReason,
  DATE_FORMAT(create_time, '%Y-%m-%dT%H:%i:%s.000Z') AS createdAt`;

type WebhookRow = Omit<Webhook, 'types'> & { types: string | null };

const webhookOf = (row: WebhookRow): Webhook => ({
  ...row,
  types: row.types === null ? null : (row.types.split(',') as EventType[]),
});

/**
 * The webhooks (table webhooks) and what is kept of them: their deliveries
 * (delivery.repository.ts), recoveries (webhook-recovery.ts) and standing
 * (webhook-standing.ts).
 */
export function webhookRepository(db: PlatformDatabase) {
  async function one(id: number): Promise<Webhook | undefined> {
    const [row] = await db.select<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`,
      [id],
    );
    return row && webhookOf(row);
  }

  return {
    ...deliveryRepository(db),
    ...webhookRecovery(db),
    ...webhookStanding(db),

    async add(
      url: string,
      types: EventType[] | null,
      secret: string,
      rateLimit: number | null,
    ): Promise<Webhook> {
      const id = await db.insert(
        'INSERT INTO webhooks (url, types, secret, rate_limit) VALUES (?, ?, ?, ?)',
        [url, types?.join(',') ?? null, secret, rateLimit],
      );
      return (await one(id)) as Webhook;
    },

    async list(): Promise<Webhook[]> {
      const rows = await db.select<WebhookRow>(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY id`,
      );
      return rows.map(webhookOf);
    },

    /**
     * `secret` signs from now on, and the one it replaces beside it for
     * `oldSeconds` more; a NotFoundError when no webhook has the id.
     */
    async rotate(id: number, secret: string, oldSeconds: number): Promise<Webhook> {
      const changed = await db.update(
        `UPDATE webhooks SET previous_secret = secret,
           previous_secret_until = NOW(3) + INTERVAL ? MICROSECOND, secret = ? WHERE id = ?`,
        [Math.round(oldSeconds * 1e6), secret, id],
      );
      if (changed === 0) throw new NotFoundError('webhook', id);
      return (await one(id)) as Webhook;
    },

    /** Sets its rate limit (null: none); a NotFoundError when no webhook has the id. */
    async limit(id: number, rateLimit: number | null): Promise<Webhook> {
      await db.update(
        'UPDATE webhooks SET rate_limit = ?, rate_tokens = 0, rate_at = NULL WHERE id = ?',
        [rateLimit, id],
      );
      const webhook = await one(id);
      if (!webhook) throw new NotFoundError('webhook', id);
      return webhook;
    },

    /** Enabled again, as if it had never failed; a NotFoundError when no webhook has the id. */
    async enable(id: number): Promise<Webhook> {
      await db.update(
        `UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
         WHERE id = ?`,
        [id],
      );
      const webhook = await one(id);
      if (!webhook) throw new NotFoundError('webhook', id);
      return webhook;
    },

    /** Deletes the webhook and its deliveries; a NotFoundError when no webhook has the id. */
    async remove(id: number): Promise<void> {
      if ((await db.update('DELETE FROM webhooks WHERE id = ?', [id])) === 0) {
        throw new NotFoundError('webhook', id);
      }
    },
  };
}

export type WebhookRepository = ReturnType<typeof webhookRepository>;
