import type { Statement } from '@svc/common';
import type { PlatformDatabase } from '../database.js';
import { type EventType, UNNUMBERED } from './outbox.js';

/**
 * What a publish step writes, in its own transaction, for the events it
 * publishes (`from` < id <= `through`): each webhook's deliveries
 * (webhooks/deliveries.ts).
 */
export type FanOut = (from: number, through: number) => Statement[];

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

/** The counter's rows: the last id given, and the last id published. */
type Counters = { events: number; published: number };

/**
 * Numbers the committed events that have no id yet, then publishes the
 * numbered ones after the 'published' row: counts them and writes what
 * `fanOut` gives for them (their webhook deliveries), in id order.
 *
 * Writers insert their events with no id (outbox.ts), and auto-increment
 * order is not the order events become readable: a transaction may take seq
 * 10 and commit after another has taken seq 11 and committed. So an event
 * gets its public id here, once committed, from event_counter's 'events' row
 * under its lock, in seq order: ids increase in the order events are
 * published, with no gaps, and an event written after another had committed
 * (an order's completion after its create) gets the larger id. At READ
 * COMMITTED each read here sees exactly what had committed when it ran (a
 * transaction still open is not seen, and not waited for).
 */
export async function publishStep(db: PlatformDatabase, fanOut: FanOut): Promise<PublishStep> {
  const [state] = await db.select<Counters & { unnumbered: number }>(
    `SELECT EXISTS (SELECT 1 FROM events ${UNNUMBERED} WHERE id IS NULL) AS unnumbered,
       MAX(CASE name WHEN 'events' THEN last_id END) AS events,
       MAX(CASE name WHEN 'published' THEN last_id END) AS published FROM event_counter`,
  );
  const numbered = state?.unnumbered ? await numberCommitted(db) : 0;
  const published =
    numbered > 0 || Number(state?.events) > Number(state?.published)
      ? await publishNumbered(db, fanOut)
      : { types: new Map<EventType, number>(), count: 0 };
  return {
    numbered,
    published: published.types,
    full: numbered === PUBLISH_BATCH || published.count === PUBLISH_BATCH,
  };
}

/** Gives ids to the oldest committed events that have none, in seq order; returns how many. */
function numberCommitted(db: PlatformDatabase): Promise<number> {
  return db.readCommitted(async (run) => {
    const [counter] = await run<{ last_id: number }[]>(
      "SELECT last_id FROM event_counter WHERE name = 'events' FOR UPDATE",
    );
    const rows = await run<{ seq: number }[]>(
      `SELECT seq FROM events ${UNNUMBERED} WHERE id IS NULL ORDER BY seq LIMIT ?`,
      [PUBLISH_BATCH],
    );
    if (!counter || rows.length === 0) return 0;
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
    return rows.length;
  });
}

/**
 * Counts the numbered events after the 'published' row, and writes their
 * fan-out, up to PUBLISH_BATCH of them; under that row's lock, so one
 * instance at a time publishes each event once. Writers never wait for it.
 */
function publishNumbered(db: PlatformDatabase, fanOut: FanOut) {
  return db.readCommitted(async (run) => {
    const [counters] = await run<Counters[]>(
      `SELECT (SELECT last_id FROM event_counter WHERE name = 'events') AS events, last_id AS published
       FROM event_counter WHERE name = 'published' FOR UPDATE`,
    );
    const from = Number(counters?.published);
    const through = Math.min(Number(counters?.events), from + PUBLISH_BATCH);
    if (!counters || through <= from) return { types: new Map<EventType, number>(), count: 0 };
    const types = await run<{ type: EventType; count: number }[]>(
      'SELECT type, COUNT(*) AS count FROM events WHERE id > ? AND id <= ? GROUP BY type',
      [from, through],
    );
    for (const { sql, values } of fanOut(from, through)) await run(sql, values);
    await run("UPDATE event_counter SET last_id = ? WHERE name = 'published'", [through]);
    return {
      types: new Map(types.map(({ type, count }) => [type, Number(count)])),
      count: through - from,
    };
  });
}

/**
 * Runs publish steps on demand (`now`): every instance runs one, in the
 * background (feed/event-outbox.ts), so the events of an instance that died
 * after its commit are published by the others.
 */
export function eventPublisher(
  db: PlatformDatabase,
  {
    fanOut,
    onPublished,
  }: { fanOut: FanOut; onPublished?: (counts: Map<EventType, number>) => void },
) {
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;

  async function untilCaughtUp(): Promise<void> {
    for (;;) {
      const step = await publishStep(db, fanOut);
      if (step.published.size > 0) onPublished?.(step.published);
      if (!step.full) return;
    }
  }

  /**
   * Resolves once every event that had committed when it was called is
   * published. A step already running may have looked before that commit, so
   * one more follows it (shared by every caller that arrives meanwhile).
   */
  function now(): Promise<void> {
    if (!running) {
      running = untilCaughtUp().finally(() => {
        running = undefined;
      });
      return running;
    }
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return now();
      });
    return next;
  }

  return {
    now,
    /** Resolves once the steps running or asked for have ended. */
    settled: () => Promise.all([running, next]).catch(() => undefined),
  };
}
