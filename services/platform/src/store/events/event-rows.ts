import { BATCH_ROWS, type Deleted, inBatches } from '../batches.js';
import type { PlatformDatabase } from '../database.js';
import { type EventType, UNNUMBERED } from './outbox.js';

/** A published event: its id and type, and its JSON text `{ id, type, createdAt, data }`. */
export interface FeedEvent {
  id: number;
  type: EventType;
  json: Buffer;
}

/**
 * How an event's data is read, on `events e` and the tables `joins` adds:
 * `json` its JSON text, whole, or open where `restKey` is not NULL, and then
 * closed by what `rests` gives for that key (one lookup per read, however
 * many events share a key).
 */
interface EventData {
  joins: string;
  json: string;
  restKey: string;
  rests(keys: number[]): Promise<(key: number) => Buffer>;
}

/** What the feed holds: the oldest event kept, and the last id given (0 before the first). */
interface FeedBounds {
  oldest: number | undefined;
  last: number;
}

interface EventRow {
  id: number;
  type: EventType;
  created_at: string;
  data: Buffer;
  rest_key: number | null;
}

const CLOSE = Buffer.from('}');

/** `{"id":"7","type":…,"createdAt":…,"data":` … `}`: the data is MySQL's JSON text, never decoded. */
function feedEvent({ id, type, created_at, data }: EventRow, rest: Buffer | undefined): FeedEvent {
  const head = Buffer.from(
    `{"id":"${id}","type":"${type}","createdAt":"${created_at.slice(0, 23)}Z","data":`,
  );
  const json = Buffer.concat(rest ? [head, data, rest, CLOSE] : [head, data, CLOSE]);
  return { id: Number(id), type, json };
}

/**
 * The events table's reads and its retention (its writes are the writers'
 * outbox.ts and publish.ts). `data` reads each event's data from the
 * resources' rows (feed/event.repository.ts).
 */
export function eventRows(db: PlatformDatabase, data: EventData) {
  const read = `SELECT e.id, e.type, DATE_FORMAT(e.created_at, '%Y-%m-%dT%H:%i:%s.%f') AS created_at,
    ${data.json} AS data, ${data.restKey} AS rest_key FROM events e ${data.joins}`;

  async function events(where: string, values: unknown[]): Promise<FeedEvent[]> {
    const rows = await db.select<EventRow>(`${read} ${where}`, values);
    const keys = rows.flatMap(({ rest_key }) => (rest_key === null ? [] : [Number(rest_key)]));
    const rest = keys.length > 0 ? await data.rests([...new Set(keys)]) : undefined;
    return rows.map((row) =>
      feedEvent(row, row.rest_key === null ? undefined : rest?.(Number(row.rest_key))),
    );
  }

  return {
    /** Events with an id above `after`, oldest first, of `types` when given. */
    after(after: number, limit: number, types?: readonly EventType[]): Promise<FeedEvent[]> {
      const filter = types ? ` AND e.type IN (${types.map(() => '?').join(', ')})` : '';
      return events(`WHERE e.id > ?${filter} ORDER BY e.id LIMIT ?`, [
        after,
        ...(types ?? []),
        limit,
      ]);
    },

    /** The events of these ids that are kept, by id. */
    async byIds(ids: number[]): Promise<Map<number, FeedEvent>> {
      if (ids.length === 0) return new Map();
      const found = await events(`WHERE e.id IN (${ids.map(() => '?').join(', ')})`, ids);
      return new Map(found.map((event) => [event.id, event]));
    },

    bounds: () => eventBounds(db),

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

/** The oldest event kept and the last id given. */
export async function eventBounds(db: Pick<PlatformDatabase, 'select'>): Promise<FeedBounds> {
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
}

/**
 * Deletes, oldest first, the events below `owed` older than `days`, up to
 * the first that is not; how many. The kept events stay every event from
 * the oldest kept on, so a reader's `after` below them is a 410, never a
 * silent hole. The oldest is looked at first, so a sweep with nothing to
 * delete reads one row.
 */
export const expireEvents = (db: PlatformDatabase, days: number, owed: number) =>
  inBatches(db, async (run) => {
    const oldest = (limit: number) =>
      `SELECT id, created_at < NOW(3) - INTERVAL ? DAY AS old FROM events FORCE INDEX (idx_events_id)
       WHERE id IS NOT NULL AND id < ? ORDER BY id LIMIT ${limit}`;
    const [first] = await run<{ old: number }[]>(oldest(1), [days, owed]);
    if (!first?.old) return 0;
    const [batch] = await run<{ young: number | null; last: number }[]>(
      `SELECT MIN(IF(old, NULL, id)) AS young, MAX(id) AS last FROM (${oldest(BATCH_ROWS)}) batch`,
      [days, owed],
    );
    const below = batch?.young ?? Number(batch?.last) + 1;
    const deleted = await run<Deleted>('DELETE FROM events WHERE id IS NOT NULL AND id < ?', [
      below,
    ]);
    return deleted.affectedRows;
  });
