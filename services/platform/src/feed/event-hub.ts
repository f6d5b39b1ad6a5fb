import type { Logger } from '@svc/common';
import { every, type Periodic } from '../every.js';
import type { FeedEvent } from '../store/events/event-rows.js';
import type { EventRepository } from './event.repository.js';

/** How often the hub reads the events published since its last read, while a stream is open. */
const POLL_MS = 100;
/** Events read by one poll at most; a poll that fills it reads again at once. */
const POLL_ROWS = 500;
/** The newest events the hub keeps for streams that are a little behind. */
const KEPT = 2000;
/** A comment on every stream this often, so proxies and clients see it alive. */
const HEARTBEAT_MS = 10_000;

/** One open stream, as the hub sees it: told when events arrive and when to say it is alive. */
interface Listener {
  published(): void;
  heartbeat(): void;
  /** Ends the stream (the instance is shutting down: its client resumes elsewhere). */
  end(): void;
}

/**
 * The events every open stream of this instance reads: one poll of the
 * database for all of them (whichever instance published the events), and the
 * newest KEPT events in memory, so a stream that keeps up never reads the
 * database itself. Polls only while a stream is open.
 */
export function eventHub(events: EventRepository, logger: Logger) {
  const listeners = new Set<Listener>();
  /** The newest events read, ids consecutive (the publisher gives them without gaps). */
  let kept: FeedEvent[] = [];
  /** The last published id the hub knows of; undefined before its first read. */
  let head: number | undefined;
  let headRead: Promise<number> | undefined;
  let poller: Periodic | undefined;
  let heartbeats: NodeJS.Timeout | undefined;

  /**
   * The head, read from the database the first time: one read for every
   * caller (a poll, a stream that starts at the head), since two reads that
   * each set it could move it back below events already kept. Streams that
   * opened before it was known look again: what was published before it is
   * theirs to read from the database.
   */
  function knownHead(): Promise<number> {
    if (head !== undefined) return Promise.resolve(head);
    headRead ??= events
      .bounds()
      .then(({ last }) => {
        head = last;
        for (const listener of listeners) listener.published();
        return last;
      })
      .finally(() => {
        headRead = undefined;
      });
    return headRead;
  }

  async function poll(): Promise<void> {
    try {
      let last = await knownHead();
      for (;;) {
        const read = await events.after(last, POLL_ROWS);
        if (read.length === 0) break;
        kept = [...kept, ...read].slice(-KEPT);
        last = (read.at(-1) as FeedEvent).id;
        head = last;
        for (const listener of listeners) listener.published();
        if (read.length < POLL_ROWS) break;
      }
    } finally {
      // Idle: the next stream starts from the database's head, not from events long gone.
      if (listeners.size === 0) {
        void poller?.stop();
        poller = undefined;
        head = undefined;
        kept = [];
      }
    }
  }

  return {
    /** The last published id, read from the database the first time. */
    head: knownHead,

    /**
     * The kept events after `after` (oldest first), or undefined when the hub
     * does not keep them all (or has not read yet): read them from the database.
     */
    since(after: number): FeedEvent[] | undefined {
      if (head === undefined) return undefined;
      if (after >= head) return [];
      const first = kept[0]?.id;
      if (first === undefined || after + 1 < first) return undefined;
      return kept.slice(after + 1 - first);
    },

    add(listener: Listener): () => void {
      listeners.add(listener);
      poller ??= every(POLL_MS, poll, { logger, what: 'events: the stream poll' });
      heartbeats ??= setInterval(() => {
        for (const each of listeners) each.heartbeat();
      }, HEARTBEAT_MS);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          clearInterval(heartbeats);
          heartbeats = undefined;
        }
      };
    },

    /** Ends every open stream, for a graceful shutdown: nothing waits on them. */
    endAll(): void {
      for (const listener of listeners) listener.end();
    },

    /** Open streams (a metric). */
    open: (): number => listeners.size,
  };
}

export type EventHub = ReturnType<typeof eventHub>;
