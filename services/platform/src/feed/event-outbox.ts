import type { Logger } from '@svc/common';
import { every } from '../every.js';
import type { PlatformDatabase } from '../store/database.js';
import type { EventType } from '../store/events/outbox.js';
import { eventPublisher } from '../store/events/publish.js';
import { deliveriesOf } from '../webhooks/deliveries.js';
import { eventRepository } from './event.repository.js';
import { eventHub } from './event-hub.js';

/** How often each instance looks for committed events to number and publish. */
const PUBLISH_INTERVAL_MS = 50;

/**
 * The events' parts an instance holds: the table's reads, the publisher that
 * numbers committed events and writes their webhook deliveries, the hub its
 * streams read, and the count of events it published by type (a metric).
 */
export function eventOutbox(db: PlatformDatabase, logger: Logger) {
  const events = eventRepository(db);
  const published = new Map<EventType, number>();
  const steps = eventPublisher(db, {
    fanOut: deliveriesOf,
    onPublished(counts) {
      for (const [type, count] of counts) published.set(type, (published.get(type) ?? 0) + count);
    },
  });
  const publisher = {
    now: steps.now,
    /** Publishes in the background until the returned function is called (it resolves once the step running ends). */
    start(): () => Promise<void> {
      const loop = every(PUBLISH_INTERVAL_MS, steps.now, { logger, what: 'events: publishing' });
      return async () => {
        await loop.stop();
        await steps.settled();
      };
    },
  };
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
