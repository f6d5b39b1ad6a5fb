import type { Statement } from '@svc/common';
import type { PlatformDatabase } from '../store/database.js';
import { type FanOut, publishStep } from '../store/events/publish.js';

/**
 * The deliveries of the events a publish step publishes: one for each
 * enabled webhook of the event's type, written in that step's transaction. A
 * delivery already written (by a server before migration 009) stays as it is.
 */
export const deliveriesOf: FanOut = (from, through): Statement[] => [
  {
    sql: `INSERT INTO webhook_deliveries (webhook_id, event_id)
       SELECT w.id, e.id FROM events e
       JOIN webhooks w ON (w.types IS NULL OR FIND_IN_SET(e.type, w.types) > 0)
         AND w.disabled_at IS NULL
       WHERE e.id > ? AND e.id <= ?
       ON DUPLICATE KEY UPDATE event_id = webhook_deliveries.event_id`,
    values: [from, through],
  },
];

/** One publish step as the platform runs it: the committed events numbered, and their deliveries. */
export const publishCommitted = (db: PlatformDatabase) => publishStep(db, deliveriesOf);
