import { NotFoundError } from '@svc/common';
import type { z } from 'zod';
import { type CachedCounts, cachedCounts } from '../db/cached-counts.js';
import type { Database } from '../db/database.js';
import { insertBatches } from '../db/insert-batches.js';
import { isoTime } from '../db/iso-time.js';
import { limitClause, type Page } from '../db/page.js';
import type { IdempotencyRepository, RequestKey } from '../idempotency/idempotency.repository.js';
import type { NewOrder, orderRow } from './order.schema.js';

type OrderRow = z.output<typeof orderRow>;

const COLUMNS = `
  SELECT o.id, o.service_id, o.user_name, o.user_phone, ${isoTime('o.create_time')} AS create_time, o.status,
         s.name AS server_name, s.name AS service_name, s.price, m.name AS merchant_name`;

const JOINS = `
  LEFT JOIN services s ON s.id = o.service_id
  LEFT JOIN merchants m ON m.id = s.merchant_id`;

/** An order's own fields as JSON text, open for the service's fields (see serviceTail). */
const ORDER_JSON_HEAD = `CAST(CONCAT(
  '{"id":', o.id, ',"service_id":', o.service_id,
  ',"user_name":', JSON_QUOTE(o.user_name), ',"user_phone":', JSON_QUOTE(o.user_phone),
  ',"create_time":"', ${isoTime('o.create_time')}, '","status":', o.status) AS BINARY)`;

interface ServiceFields {
  id: number;
  name: string;
  price: string;
  merchant_name: string | null;
}

/** The rest of an order row: what the list's LEFT JOINs would add, and the closing brace. */
function serviceTail(service: ServiceFields | undefined): Buffer {
  const name = JSON.stringify(service?.name ?? null);
  const price = JSON.stringify(service?.price ?? null);
  const merchant = JSON.stringify(service?.merchant_name ?? null);
  return Buffer.from(
    `,"server_name":${name},"service_name":${name},"price":${price},"merchant_name":${merchant}}`,
  );
}

const NO_SERVICE = serviceTail(undefined);
const COMMA = Buffer.from(',');

const NEWEST_FIRST = ' ORDER BY o.create_time DESC, o.id DESC';

function where(status: number | undefined) {
  return status === undefined
    ? { sql: '', values: [] }
    : { sql: ' WHERE o.status = ?', values: [status] };
}

/** A row's place in the list's order, newest first. */
export interface RowPosition {
  /** create_time in seconds since 1970, the column's precision. */
  createTime: number;
  id: number;
}

/** Totals of status lists past ten thousand orders may lag writes by a second. */
export const ORDER_TOTALS = { floor: 10_000, ttlMs: 1000 };

/** Orders one shared INSERT holds at most. */
const ROWS_PER_INSERT = 32;

interface OrderRepositoryOptions {
  /**
   * INSERT_CONCURRENCY: shared INSERTs running at once. Fewer statements, each
   * with more orders, cost less CPU per order on both sides (see
   * db/insert-batches.ts and the README's cost model).
   */
  insertConcurrency?: number;
  totals?: CachedCounts;
}

export function orderRepository(
  db: Database,
  keys: IdempotencyRepository,
  { insertConcurrency = 2, totals = cachedCounts(ORDER_TOTALS) }: OrderRepositoryOptions = {},
) {
  const newOrders = insertBatches(db, {
    table: 'orders',
    columns: ['service_id', 'user_name', 'user_phone'],
    concurrency: insertConcurrency,
    maxRows: ROWS_PER_INSERT,
    // As many as the pool's connections could hold in shared INSERTs.
    maxWaiting: db.connections * ROWS_PER_INSERT,
    keep: keys.keep,
  });
  /**
   * One page of the list: the ids come from the index alone, so a deep offset
   * skips index entries rather than joined rows; only the page itself is joined.
   */
  const pageOf = (whereSql: string, values: unknown[], limitSql: string, limitValues: number[]) =>
    db.select<OrderRow>(
      `${COLUMNS}
       FROM (SELECT o.id FROM orders o${whereSql}${NEWEST_FIRST}${limitSql}) page
       JOIN orders o ON o.id = page.id${JOINS}${NEWEST_FIRST}`,
      [...values, ...limitValues],
    );
  let cursorSecret: Promise<Buffer> | undefined;

  const reads = {
    /**
     * Every order, newest first, as JSON text in batches of rows: the whole
     * list can run to megabytes. MySQL writes each order's own fields as JSON
     * (`{"id":…,"status":…`) and the service's fields are appended here from one
     * lookup of the services the list names, so the text is never decoded and
     * re-encoded, and no order pays a join; both reads share one snapshot.
     */
    async all(status: number | undefined): Promise<AsyncIterable<Buffer>> {
      const filter = where(status);
      const { lookup, batches } = await db.lookupThenStream<ServiceFields, [Buffer, number]>(
        {
          sql: `SELECT s.id, s.name, s.price, m.name AS merchant_name
                FROM services s LEFT JOIN merchants m ON m.id = s.merchant_id
                WHERE s.id IN (SELECT o.service_id FROM orders o${filter.sql})`,
          values: filter.values,
        },
        {
          sql: `SELECT ${ORDER_JSON_HEAD}, o.service_id FROM orders o${filter.sql}${NEWEST_FIRST}`,
          values: filter.values,
        },
      );
      const tails = new Map(lookup.map((service) => [service.id, serviceTail(service)]));
      return (async function* () {
        for await (const batch of batches) {
          const parts: Buffer[] = [];
          for (const [head, serviceId] of batch) {
            if (parts.length > 0) parts.push(COMMA);
            parts.push(head, tails.get(serviceId) ?? NO_SERVICE);
          }
          yield Buffer.concat(parts);
        }
      })();
    },

    page(status: number | undefined, page: Page): Promise<OrderRow[]> {
      const filter = where(status);
      const limit = limitClause(page);
      return pageOf(filter.sql, filter.values, limit.sql, limit.values);
    },

    walk(
      status: number | undefined,
      after: RowPosition | undefined,
      limit: number,
    ): Promise<OrderRow[]> {
      const filter = where(status);
      if (!after) return pageOf(filter.sql, filter.values, ' LIMIT ?', [limit]);
      // One range of the index (up to the second of `after`), less the rows
      // of that second at or above its id: the same cost at any depth.
      const past = `o.create_time <= FROM_UNIXTIME(?) AND (o.create_time < FROM_UNIXTIME(?) OR o.id < ?)`;
      return pageOf(
        filter.sql ? `${filter.sql} AND ${past}` : ` WHERE ${past}`,
        [...filter.values, after.createTime, after.createTime, after.id],
        ' LIMIT ?',
        [limit],
      );
    },

    count(status: number | undefined): Promise<number> {
      return totals.get(`status=${status ?? ''}`, async () => {
        const filter = where(status);
        const [row] = await db.select<{ total: number }>(
          `SELECT COUNT(*) AS total FROM orders o${filter.sql}`,
          filter.values,
        );
        return row?.total ?? 0;
      });
    },
  };

  return {
    /**
     * Every order of the status (or of all), newest first; `walk` reads the
     * `limit` rows after a position (or the first ones) without an offset.
     */
    list(status: number | undefined) {
      return {
        all: () => reads.all(status),
        page: (page: Page) => reads.page(status, page),
        count: () => reads.count(status),
        walk: (after: RowPosition | undefined, limit: number) => reads.walk(status, after, limit),
      };
    },

    /** The secret that signs the list's cursors, which every instance on the database shares. */
    cursorSecret(): Promise<Buffer> {
      cursorSecret ??= db
        .select<{ secret: Buffer }>("SELECT secret FROM platform_secrets WHERE name = 'cursor'")
        .then(
          ([row]) => {
            if (!row) throw new Error('platform_secrets has no cursor secret: run the migrations');
            return row.secret;
          },
          (err) => {
            cursorSecret = undefined;
            throw err;
          },
        );
      return cursorSecret;
    },

    /** Status 1 (completed); a 404 when no order has the id. Completing twice is no error. */
    async complete(id: number): Promise<void> {
      const found = (await db.update('UPDATE orders SET status = 1 WHERE id = ?', [id])) > 0;
      totals.clear();
      if (!found) throw new NotFoundError('order', id);
    },

    /**
     * Only the order is written: no stock change, no price capture. Orders
     * created at the same moment share an INSERT (db/insert-batches.ts). With
     * `key`, the order's Idempotency-Key is kept in the same transaction.
     */
    async insert(order: NewOrder, key?: RequestKey): Promise<number> {
      const id = await newOrders.insert(
        [order.service_id, order.user_name, order.user_phone],
        `service ${order.service_id} does not exist`,
        key,
      );
      totals.clear();
      return id;
    },

    /** New orders waiting for a turn to be written (see insert). */
    insertsWaiting: newOrders.waiting,
  };
}

export type OrderRepository = ReturnType<typeof orderRepository>;
