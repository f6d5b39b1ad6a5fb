import { NotFoundError, type Statement } from '@svc/common';
import type { Created, KeptKeys } from '../idempotency/kept-keys.js';
import type { RequestKey } from '../idempotency/key-rows.js';
import { type CachedCounts, cachedCounts } from '../store/cached-counts.js';
import { naming, type PlatformDatabase } from '../store/database.js';
import { changeEvent, newRowEvents } from '../store/events/outbox.js';
import { newRowsAround } from '../store/new-rows.js';
import { limitClause, type Page } from '../store/page.js';
import { sharedInserts } from '../store/shared-inserts.js';
import type { NewOrder, OrderRow } from './order.schema.js';
import { cursorSecret, type RowPosition } from './order-cursor.js';
import {
  ORDER_COLUMNS,
  ORDER_JSON_HEAD,
  SERVICE_JOINS,
  SERVICE_LOOKUP,
  type ServiceLookupRow,
  withServices,
} from './order-rows.js';

const NEWEST_FIRST = ' ORDER BY o.create_time DESC, o.id DESC';

function where(status: number | undefined) {
  return status === undefined
    ? { sql: '', values: [] }
    : { sql: ' WHERE o.status = ?', values: [status] };
}

/** Totals of status lists past ten thousand orders may lag writes by a second. */
export const ORDER_TOTALS = { floor: 10_000, ttlMs: 1000 };

/** Orders one shared INSERT holds at most. */
const ROWS_PER_INSERT = 32;

/** The order.created INSERT of each row count (rows - 1), made once rather than per create. */
const CREATED_EVENTS = Array.from({ length: ROWS_PER_INSERT }, (_row, i) =>
  newRowEvents('order.created', i + 1),
);

interface OrderRepositoryOptions {
  /**
   * INSERT_CONCURRENCY: shared INSERTs running at once. Two keep the
   * database busy while one commits; more make each smaller, and fewer
   * statements with more orders cost less CPU per order on both sides
   * (see store/shared-inserts.ts).
   */
  insertConcurrency: number;
  totals?: CachedCounts;
}

export function orderRepository(
  db: PlatformDatabase,
  keys: KeptKeys,
  { insertConcurrency, totals = cachedCounts(ORDER_TOTALS) }: OrderRepositoryOptions,
) {
  const newOrders = sharedInserts<RequestKey>(db, {
    table: 'orders',
    columns: ['service_id', 'user_name', 'user_phone'],
    concurrency: insertConcurrency,
    maxRows: ROWS_PER_INSERT,
    // As many as the pool's connections could hold in shared INSERTs.
    maxWaiting: db.connections * ROWS_PER_INSERT,
    // The pool's connections but the turns' and one, so a held service never takes them all.
    maxWaitingAlone: Math.max(1, db.connections - insertConcurrency - 1),
    around: newRowsAround(keys, {
      parent: { table: 'services', idAt: 0 },
      events: (count) => CREATED_EVENTS[count - 1] as Statement[],
    }),
  });
  /**
   * The rows after `filter`, newest first: the ids come from the index alone,
   * so a deep offset skips index entries rather than joined rows; only the
   * page itself is joined.
   */
  const pageOf = (filter: { sql: string; values: unknown[] }, limitSql: string, limit: number[]) =>
    db.lists.select<OrderRow>(
      `SELECT ${ORDER_COLUMNS}
       FROM (SELECT o.id FROM orders o${filter.sql}${NEWEST_FIRST}${limitSql}) page
       JOIN orders o ON o.id = page.id${SERVICE_JOINS}${NEWEST_FIRST}`,
      [...filter.values, ...limit],
    );

  /**
   * Every order, newest first, as JSON text in batches of rows: the whole
   * list can run to megabytes. MySQL writes each order's own fields and its
   * service's are appended from one lookup of the services the list names, so
   * the text is never decoded and re-encoded, and no order pays a join; both
   * reads share one snapshot.
   */
  async function all(status: number | undefined): Promise<AsyncIterable<Buffer>> {
    const filter = where(status);
    const { lookup, batches } = await db.lists.lookupThenStream<ServiceLookupRow, [Buffer, number]>(
      {
        sql: `${SERVICE_LOOKUP} WHERE s.id IN (SELECT o.service_id FROM orders o${filter.sql})`,
        values: filter.values,
      },
      {
        sql: `SELECT ${ORDER_JSON_HEAD}, o.service_id FROM orders o${filter.sql}${NEWEST_FIRST}`,
        values: filter.values,
      },
    );
    return withServices(lookup, batches);
  }

  /** One page after a position (or the first), read without an offset: the same cost at any depth. */
  function walk(status: number | undefined, after: RowPosition | undefined, limit: number) {
    const filter = where(status);
    if (!after) return pageOf(filter, ' LIMIT ?', [limit]);
    // Two ranges of the index, each bounded at `after`: the rest of its
    // second below its id, then the older seconds. Written as one range up to
    // the second, less the rows at or above the id, the walk would step over
    // every row of that second above `after` (a million, when a million
    // orders share it).
    const past = `(o.create_time = FROM_UNIXTIME(?) AND o.id < ?) OR o.create_time < FROM_UNIXTIME(?)`;
    return pageOf(
      {
        sql: filter.sql ? `${filter.sql} AND (${past})` : ` WHERE ${past}`,
        values: [...filter.values, after.createTime, after.id, after.createTime],
      },
      ' LIMIT ?',
      [limit],
    );
  }

  const count = (status: number | undefined) =>
    totals.get(`status=${status ?? ''}`, async () => {
      const filter = where(status);
      const [row] = await db.lists.select<{ total: number }>(
        `SELECT COUNT(*) AS total FROM orders o${filter.sql}`,
        filter.values,
      );
      return row?.total ?? 0;
    });

  return {
    /** Every order of the status (or of all), newest first: whole, a page, a walk's page, or counted. */
    list(status: number | undefined) {
      return {
        all: () => all(status),
        page: (page: Page) => {
          const limit = limitClause(page);
          return pageOf(where(status), limit.sql, limit.values);
        },
        walk: (after: RowPosition | undefined, limit: number) => walk(status, after, limit),
        count: () => count(status),
      };
    },

    /** The secret that signs the list's cursors, which every instance on the database shares. */
    cursorSecret: cursorSecret(db),

    /**
     * Status 1 (completed), with its order.completed event; a NotFoundError
     * when no order has the id. Completing twice is no error, and no event.
     */
    async complete(id: number): Promise<void> {
      const found = await db.change([
        { sql: 'SELECT 1 FROM orders WHERE id = ? FOR UPDATE', values: [id] },
        { sql: 'UPDATE orders SET status = ? WHERE id = ? AND status <> ?', values: [1, id, 1] },
        changeEvent('order.completed', id, 1),
      ]);
      totals.clear();
      if (!found) throw new NotFoundError('order', id);
    },

    /**
     * Only the order and its order.created event are written: no stock change,
     * no price capture. Orders created at the same moment share an INSERT
     * (common's sharedInserts). With `key`, the order's Idempotency-Key is kept
     * in the same transaction (once per key: idempotency/kept-keys.ts). A service id no
     * row has is a MissingReferenceError naming it.
     */
    create(order: NewOrder, key?: RequestKey): Promise<Created> {
      const write = async (kept?: RequestKey) => {
        try {
          const id = await newOrders.insert(
            [order.service_id, order.user_name, order.user_phone],
            kept,
          );
          totals.clear();
          return id;
        } catch (err) {
          throw naming(err, 'service', order.service_id);
        }
      };
      return key ? keys.once(key, write) : write().then((id) => ({ id, replayed: false }));
    },

    /** New orders waiting for a turn to be written (see create). */
    insertsWaiting: newOrders.waiting,
  };
}

export type OrderRepository = ReturnType<typeof orderRepository>;
