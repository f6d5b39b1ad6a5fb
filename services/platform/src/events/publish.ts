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

/** Events numbered by one publish step at most. */
export const PUBLISH_BATCH = 1000;

/**
 * Numbers the events that have committed and have no id yet, and writes their
 * webhook deliveries; returns their types (none when nothing was waiting).
 *
 * Auto-increment order is not commit order: a transaction may take seq 10 and
 * commit after another has taken seq 11 and committed. So an event gets its
 * public id only here, once committed. One step at a time holds the lock of
 * event_counter's row, across every instance; at READ COMMITTED each read sees
 * exactly what had committed when it ran (a transaction still open is not
 * seen, and not waited for), and the ids given are the counter's next ones, in
 * seq order. A later step gives larger ids, so an event that commits after a
 * reader saw id N gets an id above N: ids increase in commit order, with no gaps.
 */
export async function publishCommitted(db: PlatformDatabase): Promise<EventType[]> {
  const waiting = await db.select('SELECT 1 FROM events WHERE id IS NULL LIMIT 1');
  if (waiting.length === 0) return [];
  return db.readCommitted(async (run) => {
    const [counter] = await run<{ last_id: number }[]>(
      "SELECT last_id FROM event_counter WHERE name = 'events' FOR UPDATE",
    );
    const rows = await run<{ seq: number; type: EventType }[]>(
      `SELECT seq, type FROM events ${UNNUMBERED} WHERE id IS NULL ORDER BY seq LIMIT ?`,
      [PUBLISH_BATCH],
    );
    if (!counter || rows.length === 0) return [];
    const last = Number(counter.last_id);
    const seqs = rows.map((row) => row.seq);
    const list = seqs.map(() => '?').join(', ');
    // FIELD(): the place of the row's seq in the list, from 1.
    await run(`UPDATE events SET id = ? + FIELD(seq, ${list}) WHERE seq IN (${list})`, [
      last,
      ...seqs,
      ...seqs,
    ]);
    await run("UPDATE event_counter SET last_id = ? WHERE name = 'events'", [last + rows.length]);
    await run(
      `INSERT INTO webhook_deliveries (webhook_id, event_id)
       SELECT w.id, e.id FROM events e
       JOIN webhooks w ON w.types IS NULL OR FIND_IN_SET(e.type, w.types) > 0
       WHERE e.id > ? AND e.id <= ?`,
      [last, last + rows.length],
    );
    return rows.map((row) => row.type);
  });
}
