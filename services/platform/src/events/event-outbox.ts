import type { Logger } from '@svc/common';
import type { PlatformDatabase } from '../db/database.js';
import { eventRepository } from './event.repository.js';
import { eventHub } from './event-hub.js';
import type { EventType } from './outbox.js';
import { eventPublisher } from './publisher.js';

/**
 * The events' parts an instance holds: the table's reads, the publisher that
 * numbers committed events, the hub its streams read, and the count of events
 * it published by type (a metric).
 */
export function eventOutbox(db: PlatformDatabase, logger: Logger) {
  const events = eventRepository(db);
  const published = new Map<EventType, number>();
  const publisher = eventPublisher(db, {
    logger,
    onPublished(counts) {
      for (const [type, count] of counts) published.set(type, (published.get(type) ?? 0) + count);
    },
  });
  return {
    events,
    publisher,
    hub: eventHub(events, logger),
    published,
    oldestUndeliveredAge: lastKnown(events.oldestUndeliveredAge),
  };
}

/** A scrape waits this long for a read of the store, then answers with the last value read. */
const SCRAPE_WAIT_MS = 500;

/** A value read from the store, for a metric: a scrape never waits long on a busy or absent MySQL. */
function lastKnown(read: () => Promise<number>): () => Promise<number> {
  let last = 0;
  let reading: Promise<void> | undefined;
  return async () => {
    reading ??= read()
      .then((value) => {
        last = value;
      })
      .catch(() => undefined)
      .finally(() => {
        reading = undefined;
      });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      reading,
      new Promise((resolve) => (timer = setTimeout(resolve, SCRAPE_WAIT_MS))),
    ]);
    clearTimeout(timer);
    return last;
  };
}

export type EventOutbox = ReturnType<typeof eventOutbox>;
