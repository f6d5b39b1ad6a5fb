import type { PlatformDatabase } from '../db/database.js';
import { eventRepository } from './event.repository.js';

/** A statement of a readCommitted transaction. */
type Run = Parameters<Parameters<PlatformDatabase['readCommitted']>[0]>[0];

/** Rows one statement deletes at most. */
const BATCH = 1000;

type Deleted = { affectedRows: number };

/**
 * What EVENT_RETENTION_DAYS removes, and what it keeps because it is still
 * owed. The kept events are always every event from the oldest kept on, so
 * a reader's `after` below them is a 410, never a silent hole. Deletion
 * stops at the oldest event still owed to a webhook: not yet published (its
 * deliveries not written), or with a delivery pending, or failed and still
 * listed for a retry. Every statement reads along an index from its first
 * row and stops at its last, and runs at READ COMMITTED, which takes no gap
 * locks: publish steps and deliveries write on at the young end meanwhile.
 */
export function eventRetention(db: PlatformDatabase) {
  const batches = async (statement: (run: Run) => Promise<number>): Promise<number> => {
    let total = 0;
    for (;;) {
      const rows = await db.readCommitted(statement);
      total += rows;
      if (rows < BATCH) return total;
    }
  };

  /** Failed deliveries are listed, and can be retried, `days` after they failed (next_attempt_at, set then). */
  async function expireFailed(days: number): Promise<void> {
    // Per webhook, along idx_deliveries_claim (webhook_id, status, next_attempt_at).
    for (const { id } of await db.select<{ id: number }>('SELECT id FROM webhooks')) {
      await batches(async (run) => {
        const result = await run<Deleted>(
          `DELETE FROM webhook_deliveries WHERE webhook_id = ? AND status = 'failed'
           AND next_attempt_at < NOW(3) - INTERVAL ? DAY LIMIT ${BATCH}`,
          [id, days],
        );
        return result.affectedRows;
      });
    }
  }

  /** The lowest id still owed: deleting stops below it. Three index dives (idx_deliveries_pending). */
  async function oldestOwed(): Promise<number> {
    const [row] = await db.select<{
      published: number;
      pending: number | null;
      failed: number | null;
    }>(
      `SELECT (SELECT last_id FROM event_counter WHERE name = 'published') AS published,
         (SELECT MIN(event_id) FROM webhook_deliveries WHERE status = 'pending') AS pending,
         (SELECT MIN(event_id) FROM webhook_deliveries WHERE status = 'failed') AS failed`,
    );
    const owed = [Number(row?.published) + 1, row?.pending, row?.failed];
    return Math.min(...owed.filter((id) => id !== null && id !== undefined).map(Number));
  }

  /**
   * Deletes, oldest first, the events below `owed` older than `days`, up to
   * the first that is not; how many. The oldest is looked at first, so a
   * sweep with nothing to delete reads one row.
   */
  const expireEvents = (days: number, owed: number) =>
    batches(async (run) => {
      const oldest = (limit: number) =>
        `SELECT id, created_at < NOW(3) - INTERVAL ? DAY AS old FROM events FORCE INDEX (idx_events_id)
         WHERE id IS NOT NULL AND id < ? ORDER BY id LIMIT ${limit}`;
      const [first] = await run<{ old: number }[]>(oldest(1), [days, owed]);
      if (!first?.old) return 0;
      const [batch] = await run<{ young: number | null; last: number }[]>(
        `SELECT MIN(IF(old, NULL, id)) AS young, MAX(id) AS last FROM (${oldest(BATCH)}) batch`,
        [days, owed],
      );
      const below = batch?.young ?? Number(batch?.last) + 1;
      const deleted = await run<Deleted>('DELETE FROM events WHERE id IS NOT NULL AND id < ?', [
        below,
      ]);
      return deleted.affectedRows;
    });

  /** The deliveries of events no longer kept, all delivered by then, read along an index on event_id. */
  async function forgetDelivered(): Promise<void> {
    const { oldest, last } = await eventRepository(db).bounds();
    await batches(async (run) => {
      const result = await run<Deleted>(
        `DELETE FROM webhook_deliveries WHERE status = 'delivered' AND event_id < ? LIMIT ${BATCH}`,
        [oldest ?? last + 1],
      );
      return result.affectedRows;
    });
  }

  return {
    /** One sweep: the failed deliveries past `days`, then the events, then their deliveries; the events deleted. */
    async sweep(days: number): Promise<number> {
      await expireFailed(days);
      const removed = await expireEvents(days, await oldestOwed());
      await forgetDelivered();
      return removed;
    },
  };
}

export type EventRetention = ReturnType<typeof eventRetention>;
