import { BATCH_ROWS, type Deleted, inBatches } from '../store/batches.js';
import type { PlatformDatabase } from '../store/database.js';
import { eventBounds, expireEvents } from '../store/events/event-rows.js';

/**
 * What EVENT_RETENTION_DAYS removes, and what it keeps because it is still
 * owed: the events' deletion (store/events/event-rows.ts) stops at the
 * oldest event still owed to a webhook: not yet published (its deliveries not
 * written), or with a delivery pending, or failed and still listed for a
 * retry; or, with the JetStream relay, not yet relayed. Every statement reads along an index from its first row and stops
 * at its last, and runs at READ COMMITTED, which takes no gap locks: publish
 * steps and deliveries write on at the young end meanwhile.
 */
export function eventRetention(
  db: PlatformDatabase,
  { relayStream }: { relayStream?: string } = {},
) {
  /** Failed deliveries are listed, and can be retried, `days` after they failed (next_attempt_at, set then). */
  async function expireFailed(days: number): Promise<void> {
    // Per webhook, along idx_deliveries_claim (webhook_id, status, next_attempt_at).
    for (const { id } of await db.select<{ id: number }>('SELECT id FROM webhooks')) {
      await inBatches(db, async (run) => {
        const result = await run<Deleted>(
          `DELETE FROM webhook_deliveries WHERE webhook_id = ? AND status = 'failed'
           AND next_attempt_at < NOW(3) - INTERVAL ? DAY LIMIT ${BATCH_ROWS}`,
          [id, days],
        );
        return result.affectedRows;
      });
    }
  }

  /**
   * The lowest id still owed: deleting stops below it. Three index dives
   * (idx_deliveries_pending), and the relay's position when there is one.
   */
  async function oldestOwed(): Promise<number> {
    const [row] = await db.select<{
      published: number;
      pending: number | null;
      failed: number | null;
      relayed: number | null;
    }>(
      `SELECT (SELECT last_id FROM event_counter WHERE name = 'published') AS published,
         (SELECT MIN(event_id) FROM webhook_deliveries WHERE status = 'pending') AS pending,
         (SELECT MIN(event_id) FROM webhook_deliveries WHERE status = 'failed') AS failed,
         (SELECT last_id FROM event_relays WHERE stream = ?) AS relayed`,
      [relayStream ?? null],
    );
    const relayed = relayStream === undefined ? null : Number(row?.relayed ?? 0) + 1;
    const owed = [Number(row?.published) + 1, row?.pending, row?.failed, relayed];
    return Math.min(...owed.filter((id) => id !== null && id !== undefined).map(Number));
  }

  /** The deliveries of events no longer kept, all delivered by then, read along an index on event_id. */
  async function forgetDelivered(): Promise<void> {
    const { oldest, last } = await eventBounds(db);
    await inBatches(db, async (run) => {
      const result = await run<Deleted>(
        `DELETE FROM webhook_deliveries WHERE status = 'delivered' AND event_id < ? LIMIT ${BATCH_ROWS}`,
        [oldest ?? last + 1],
      );
      return result.affectedRows;
    });
  }

  return {
    /** One sweep: the failed deliveries past `days`, then the events, then their deliveries; the events deleted. */
    async sweep(days: number): Promise<number> {
      await expireFailed(days);
      const removed = await expireEvents(db, days, await oldestOwed());
      await forgetDelivered();
      return removed;
    },
  };
}
