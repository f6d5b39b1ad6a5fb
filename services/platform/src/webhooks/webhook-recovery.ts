import { NotFoundError } from '@svc/common';
import type { PlatformDatabase } from '../store/database.js';

/** Event ids a recovery step looks at. */
const RECOVER_IDS = 1000;

/** A webhook's recovery of the events it missed (POST /api/webhooks/:id/recover), carried out by the deliverer's turns. */
export function webhookRecovery(db: PlatformDatabase) {
  return {
    /**
     * Asks for every published event since `since` that it subscribes to to
     * be sent again (recoverSome does it, in the background); the last event
     * id it covers. A NotFoundError when no webhook has the id.
     */
    async recover(id: number, since: Date): Promise<number> {
      const [counters] = await db.select<{ oldest: number | null; published: number }>(
        `SELECT (SELECT MIN(id) FROM events) AS oldest,
           (SELECT last_id FROM event_counter WHERE name = 'published') AS published`,
      );
      const through = Number(counters?.published ?? 0);
      const changed = await db.update(
        'UPDATE webhooks SET recover_next = ?, recover_through = ?, recover_since = ? WHERE id = ?',
        [Number(counters?.oldest ?? through + 1), through, since, id],
      );
      if (changed === 0) throw new NotFoundError('webhook', id);
      return through;
    },

    /**
     * One step of each recovery under way: the deliveries of the next
     * RECOVER_IDS event ids, those since its time and of its types, written
     * pending and due now (a delivery already made is made again, with the
     * same webhook-id); under the webhook's lock, so two instances never
     * take the same step. True while any has more to do.
     */
    async recoverSome(): Promise<boolean> {
      const recovering = await db.select<{ id: number }>(
        'SELECT id FROM webhooks WHERE recover_next IS NOT NULL AND disabled_at IS NULL',
      );
      let more = false;
      for (const { id } of recovering) {
        more =
          (await db.readCommitted(async (run) => {
            const [row] = await run<{ next: number; through: number }[]>(
              `SELECT recover_next AS next, recover_through AS through FROM webhooks
               WHERE id = ? AND recover_next IS NOT NULL FOR UPDATE SKIP LOCKED`,
              [id],
            );
            if (!row) return false;
            const last = Math.min(Number(row.next) + RECOVER_IDS - 1, Number(row.through));
            await run(
              `INSERT INTO webhook_deliveries (webhook_id, event_id)
               SELECT w.id, e.id FROM webhooks w
               JOIN events e ON e.id BETWEEN ? AND ? AND e.created_at >= w.recover_since
                 AND (w.types IS NULL OR FIND_IN_SET(e.type, w.types) > 0)
               WHERE w.id = ? ORDER BY e.id
               ON DUPLICATE KEY UPDATE status = 'pending', attempts = 0, next_attempt_at = NOW(3),
                 response_status = NULL, error = NULL`,
              [row.next, last, id],
            );
            if (last >= Number(row.through)) {
              await run(
                `UPDATE webhooks SET recover_next = NULL, recover_through = NULL, recover_since = NULL
                 WHERE id = ?`,
                [id],
              );
              return false;
            }
            await run('UPDATE webhooks SET recover_next = ? WHERE id = ?', [last + 1, id]);
            return true;
          })) || more;
      }
      return more;
    },
  };
}
