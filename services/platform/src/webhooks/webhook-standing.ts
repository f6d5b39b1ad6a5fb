import type { PlatformDatabase } from '../store/database.js';
import { changeEventOf } from '../store/events/outbox.js';

/** When the webhook was disabled, in milliseconds as every time of the API; NULL while enabled. */
export const DISABLED_AT = `CONCAT(LEFT(DATE_FORMAT(disabled_at, '%Y-%m-%dT%H:%i:%s.%f'), 23), 'Z')`;

/** The webhook as the list shows it, as the JSON text of its webhook.disabled event. */
const WEBHOOK_JSON = `SELECT JSON_OBJECT('id', id, 'url', url,
  'types', IF(types IS NULL, NULL, JSON_EXTRACT(CONCAT('["', REPLACE(types, ',', '","'), '"]'), '$')),
  'rateLimit', rate_limit,
  'disabledAt', ${DISABLED_AT},
  'disabledReason', disabled_reason,
  'createdAt', DATE_FORMAT(create_time, '%Y-%m-%dT%H:%i:%s.000Z')) FROM webhooks WHERE id = ?`;

/**
 * Whether a webhook is failing, and its disabling once it has failed long
 * enough (WEBHOOK_DISABLE_AFTER_HOURS), as the deliverer finds its attempts.
 */
export function webhookStanding(db: PlatformDatabase) {
  return {
    /** A claim's attempts all failed: the webhook is failing, from now if it was not. */
    async failing(id: number): Promise<void> {
      await db.update(
        'UPDATE webhooks SET failing_since = NOW(3) WHERE id = ? AND failing_since IS NULL',
        [id],
      );
    },

    /** An attempt was delivered: the webhook is no longer failing. */
    async delivering(id: number): Promise<void> {
      await db.update(
        'UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL',
        [id],
      );
    },

    /**
     * Disables the webhook when it has been failing for `seconds`, with its
     * webhook.disabled event and its pending deliveries failed (listed, and
     * sent again by retry or recover), in one transaction; true when it did.
     */
    disableIfFailing(id: number, seconds: number, reason: string): Promise<boolean> {
      return db.readCommitted(async (run) => {
        const disabled = await run<{ affectedRows: number }>(
          `UPDATE webhooks SET disabled_at = NOW(3), disabled_reason = ?
           WHERE id = ? AND disabled_at IS NULL AND failing_since <= NOW(3) - INTERVAL ? MICROSECOND`,
          [reason, id, Math.round(seconds * 1e6)],
        );
        if (disabled.affectedRows === 0) return false;
        // Straight after the UPDATE: the event's INSERT reads its ROW_COUNT().
        const event = changeEventOf('webhook.disabled', id, { sql: WEBHOOK_JSON, values: [id] });
        await run(event.sql, event.values);
        await run(
          `UPDATE webhook_deliveries SET status = 'failed', error = ?, next_attempt_at = NOW(3)
           WHERE webhook_id = ? AND status = 'pending'`,
          [reason, id],
        );
        return true;
      });
    },
  };
}
