import type { PlatformDatabase } from '../db/database.js';
import type { EventType } from './outbox.js';

/**
 * The index to find the events not yet numbered by: id NULL, in seq order, so
 * a step reads only the rows it takes. They sit after every kept numbered
 * event; with a backlog a few percent of the table the optimizer would walk
 * the primary key from the oldest kept event instead, reading the whole table
 * (test/publish-backlog.test.ts).
 */
export const UNNUMBERED = 'FORCE INDEX (idx_events_id)';

/** Events numbered, and events published, by one publish step at most. */
const PUBLISH_BATCH = 1000;

/** What one publish step did. */
interface PublishStep {
  /** Events it gave ids. */
  numbered: number;
  /** Events it published, by type. */
  published: Map<EventType, number>;
  /** A batch was full: more may be waiting. */
  full: boolean;
}

/**
 * Numbers the committed events that have no id yet, then publishes the
 * numbered ones after event_counter's published_id: counts them and writes
 * their webhook deliveries, in id order.
 *
 * Auto-increment order is not commit order: a transaction may take seq 10 and
 * commit after another has taken seq 11 and committed. So an event gets its
 * public id from event_counter's row, under its lock: from the transaction
 * that writes it (outbox.ts), or, when that one found the row held, here, once
 * committed. The row's lock is held until the holder commits, so whoever takes
 * it next gives larger ids: ids increase in commit order, with no gaps. At
 * READ COMMITTED each read here sees exactly what had committed when it ran (a
 * transaction still open is not seen, and not waited for).
 */
export async function publishCommitted(db: PlatformDatabase): Promise<PublishStep> {
  const idle: PublishStep = { numbered: 0, published: new Map(), full: false };
  const [state] = await db.select<{ unnumbered: number; unpublished: number }>(
    `SELECT EXISTS (SELECT 1 FROM events ${UNNUMBERED} WHERE id IS NULL) AS unnumbered,
       last_id > published_id AS unpublished FROM event_counter WHERE name = 'events'`,
  );
  if (!state?.unnumbered && !state?.unpublished) return idle;
  return db.readCommitted(async (run) => {
    const [counter] = await run<{ last_id: number; published_id: number }[]>(
      "SELECT last_id, published_id FROM event_counter WHERE name = 'events' FOR UPDATE",
    );
    if (!counter) return idle;
    const rows = await run<{ seq: number }[]>(
      `SELECT seq FROM events ${UNNUMBERED} WHERE id IS NULL ORDER BY seq LIMIT ?`,
      [PUBLISH_BATCH],
    );
    let last = Number(counter.last_id);
    if (rows.length > 0) {
      const seqs = rows.map((row) => row.seq);
      const list = seqs.map(() => '?').join(', ');
      // FIELD(): the place of the row's seq in the list, from 1.
      await run(`UPDATE events SET id = ? + FIELD(seq, ${list}) WHERE seq IN (${list})`, [
        last,
        ...seqs,
        ...seqs,
      ]);
      last += rows.length;
    }
    const from = Number(counter.published_id);
    const through = Math.min(last, from + PUBLISH_BATCH);
    const types = await run<{ type: EventType; count: number }[]>(
      'SELECT type, COUNT(*) AS count FROM events WHERE id > ? AND id <= ? GROUP BY type',
      [from, through],
    );
    // A delivery already written (by a server before migration 009) stays as it is.
    await run(
      `INSERT INTO webhook_deliveries (webhook_id, event_id)
       SELECT w.id, e.id FROM events e
       JOIN webhooks w ON w.types IS NULL OR FIND_IN_SET(e.type, w.types) > 0
       WHERE e.id > ? AND e.id <= ?
       ON DUPLICATE KEY UPDATE event_id = webhook_deliveries.event_id`,
      [from, through],
    );
    await run("UPDATE event_counter SET last_id = ?, published_id = ? WHERE name = 'events'", [
      last,
      through,
    ]);
    return {
      numbered: rows.length,
      published: new Map(types.map(({ type, count }) => [type, Number(count)])),
      full: rows.length === PUBLISH_BATCH || through - from === PUBLISH_BATCH,
    };
  });
}
