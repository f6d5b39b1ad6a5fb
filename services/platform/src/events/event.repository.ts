import type { PlatformDatabase } from '../db/database.js';
import { EVENT_DATA } from './event-data.js';
import type { EventType } from './outbox.js';
import { UNNUMBERED } from './publish.js';

/** A published event: its id and type, and its JSON text `{ id, type, createdAt, data }`. */
export interface FeedEvent {
  id: number;
  type: EventType;
  json: Buffer;
}

/** What the feed holds: the oldest event kept, and the last id given (0 before the first). */
interface FeedBounds {
  oldest: number | undefined;
  last: number;
}

const EVENT_COLUMNS = `e.id, e.type, DATE_FORMAT(e.created_at, '%Y-%m-%dT%H:%i:%s.%f') AS created_at,
  ${EVENT_DATA} AS data`;

interface EventRow {
  id: number;
  type: EventType;
  created_at: string;
  data: Buffer;
}

/** `{"id":"7","type":…,"createdAt":…,"data":` … `}`: the data is MySQL's JSON text, never decoded. */
function feedEvent({ id, type, created_at, data }: EventRow): FeedEvent {
  const head = `{"id":"${id}","type":"${type}","createdAt":"${created_at.slice(0, 23)}Z","data":`;
  return { id: Number(id), type, json: Buffer.concat([Buffer.from(head), data, CLOSE]) };
}
const CLOSE = Buffer.from('}');

/** The published events (table events); the publisher numbers them (see publisher.ts). */
export function eventRepository(db: PlatformDatabase) {
  return {
    /** Events with an id above `after`, oldest first, of `types` when given. */
    async after(after: number, limit: number, types?: readonly EventType[]): Promise<FeedEvent[]> {
      const filter = types ? ` AND e.type IN (${types.map(() => '?').join(', ')})` : '';
      const rows = await db.select<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id > ?${filter} ORDER BY e.id LIMIT ?`,
        [after, ...(types ?? []), limit],
      );
      return rows.map(feedEvent);
    },

    /** The events of these ids that are kept, by id. */
    async byIds(ids: number[]): Promise<Map<number, FeedEvent>> {
      if (ids.length === 0) return new Map();
      const rows = await db.select<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id IN (${ids.map(() => '?').join(', ')})`,
        ids,
      );
      return new Map(rows.map((row) => [Number(row.id), feedEvent(row)]));
    },

    async bounds(): Promise<FeedBounds> {
      // MIN skips the NULL ids by itself; with `WHERE id IS NOT NULL` MariaDB reads the whole index.
      const [row] = await db.select<{ oldest: number | null; last: number }>(
        `SELECT (SELECT MIN(id) FROM events) AS oldest,
                last_id AS last FROM event_counter WHERE name = 'events'`,
      );
      if (!row) throw new Error('event_counter has no row: run the migrations');
      return {
        oldest: row.oldest === null ? undefined : Number(row.oldest),
        last: Number(row.last),
      };
    },

    /**
     * Seconds since the oldest event that is not yet published or has a
     * webhook delivery still to make was written; 0 when there is none.
     */
    async oldestUndeliveredAge(): Promise<number> {
      const [row] = await db.select<{ age: number | null }>(
        `SELECT TIMESTAMPDIFF(MICROSECOND, MIN(created_at), NOW(3)) / 1e6 AS age FROM (
           (SELECT created_at FROM events ${UNNUMBERED} WHERE id IS NULL ORDER BY seq LIMIT 1)
           UNION ALL
           (SELECT e.created_at FROM events e
            JOIN event_counter c ON c.name = 'published' AND e.id = c.last_id + 1)
           UNION ALL
           (SELECT e.created_at FROM events e
            JOIN (SELECT MIN(event_id) AS id FROM webhook_deliveries WHERE status = 'pending') d
              ON e.id = d.id)
         ) oldest`,
      );
      return Number(row?.age ?? 0);
    },
  };
}

export type EventRepository = ReturnType<typeof eventRepository>;
