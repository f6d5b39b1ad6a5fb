import { LockConflictError, type Logger } from '@svc/common';
import { every, type Periodic } from '../every.js';
import type { PlatformDatabase } from '../store/database.js';
import type { EventRepository } from './event.repository.js';
import type { JetStreamEvents } from './jetstream.js';

/** How often each instance looks for events to relay. */
const RELAY_INTERVAL_MS = 50;

/** Events one relay step publishes at most. */
const RELAY_BATCH = 500;

/** The oldest event not yet relayed is this old, or older: the relay is behind. */
const BEHIND_SECONDS = 1;

/** How far the relay trails the events: how many, and the age of the oldest not relayed (0 when none). */
interface RelayLag {
  events: number;
  seconds: number;
}

/**
 * The relay of published events to JetStream (jetstream.ts), in id order.
 * Its position (the last event id relayed) is a row of event_relays, one per
 * stream, which a step locks without waiting: an instance that finds it
 * taken leaves the step to the one holding it, so any instance relays and
 * two never relay at once. A step takes the stream's last message (as its
 * last publish left it, or read from the stream; jetstream.ts) and starts
 * after the larger of its event id and the kept position, so events an
 * instance published and died before recording are not sent again, however
 * long ago; it advances the position, in the same transaction, only to the
 * last event JetStream acknowledged. A broker that fails leaves the position
 * where it was, and the next step tries again.
 */
export function eventRelay(
  db: PlatformDatabase,
  events: EventRepository,
  broker: JetStreamEvents,
  { stream, logger }: { stream: string; logger: Logger },
) {
  let lag: RelayLag = { events: 0, seconds: 0 };

  /** How far the relay trails, as the position and the events' counter say; makes the position's row if missing. */
  async function look(): Promise<RelayLag> {
    const [row] = await db.select<{ relayed: number | null; last: number; age: number | null }>(
      `SELECT r.last_id AS relayed, c.last_id AS last,
         (SELECT TIMESTAMPDIFF(MICROSECOND, e.created_at, NOW(3)) / 1e6 FROM events e
          WHERE e.id = r.last_id + 1) AS age
       FROM event_counter c LEFT JOIN event_relays r ON r.stream = ? WHERE c.name = 'events'`,
      [stream],
    );
    if (!row) throw new Error('event_counter has no row: run the migrations');
    if (row.relayed === null) {
      await db.update('INSERT IGNORE INTO event_relays (stream, last_id) VALUES (?, 0)', [stream]);
      return look();
    }
    lag = {
      events: Math.max(0, Number(row.last) - Number(row.relayed)),
      seconds: Number(row.age ?? 0),
    };
    return lag;
  }

  /** Relays the next events, if this instance may; true when a full batch went and more may wait. */
  async function step(): Promise<boolean> {
    const { more, failure } = await db.readCommitted(async (run) => {
      let kept: number;
      try {
        const [row] = await run<{ last_id: number }[]>(
          'SELECT last_id FROM event_relays WHERE stream = ? FOR UPDATE NOWAIT',
          [stream],
        );
        kept = Number(row?.last_id);
      } catch (err) {
        // Another instance is relaying.
        if (err instanceof LockConflictError) return { more: false };
        throw err;
      }
      const end = await broker.end(kept);
      const from = Math.max(kept, end.id);
      const batch = await events.after(from, RELAY_BATCH);
      const { acknowledged, failure } =
        batch.length > 0 ? await broker.publish(batch, end.seq) : { acknowledged: 0 };
      const through = acknowledged > 0 ? (batch[acknowledged - 1]?.id ?? from) : from;
      if (through > kept) {
        await run('UPDATE event_relays SET last_id = ? WHERE stream = ?', [through, stream]);
      }
      return { more: !failure && batch.length === RELAY_BATCH, failure };
    });
    // What JetStream acknowledged before a failure is recorded; the rest goes at a later step.
    if (failure) throw failure;
    return more;
  }

  async function relay(): Promise<void> {
    if ((await look()).events === 0) return;
    while (await step()) {}
    await look();
  }

  let loop: Periodic | undefined;
  return {
    /** Relays in the background until stopped. */
    start(): void {
      loop = every(RELAY_INTERVAL_MS, relay, { logger, what: `events: relaying to ${stream}` });
    },
    async stop(): Promise<void> {
      await loop?.stop();
      await broker.close();
    },
    /** The lag last seen (metrics). */
    lag: (): RelayLag => lag,
    /** What /readyz says of it. */
    state: (): 'behind' | 'caught up' => (lag.seconds >= BEHIND_SECONDS ? 'behind' : 'caught up'),
  };
}

export type EventRelay = ReturnType<typeof eventRelay>;
