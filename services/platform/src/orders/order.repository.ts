import type { z } from 'zod';
import type { Database } from '../db/database.js';
import { limitClause, type Page } from '../db/page.js';
import type { Stored } from '../http/envelopes.js';
import type { NewOrder, orderRow } from './order.schema.js';

export type OrderRow = Stored<z.output<typeof orderRow>>;

const COLUMNS = `
  SELECT o.id, o.service_id, o.user_name, o.user_phone, o.create_time, o.status,
         s.name AS server_name, s.name AS service_name, s.price, m.name AS merchant_name`;

const JOINS = `
  LEFT JOIN services s ON s.id = o.service_id
  LEFT JOIN merchants m ON m.id = s.merchant_id`;

const NEWEST_FIRST = ' ORDER BY o.create_time DESC, o.id DESC';

function where(status: number | undefined) {
  return status === undefined
    ? { sql: '', values: [] }
    : { sql: ' WHERE o.status = ?', values: [status] };
}

export function orderRepository(db: Database) {
  return {
    /** Every order, newest first, streamed: the whole list can run to megabytes. */
    all(status: number | undefined): Promise<AsyncIterable<OrderRow>> {
      const filter = where(status);
      return db.selectEach<OrderRow>(
        `${COLUMNS} FROM orders o${JOINS}${filter.sql}${NEWEST_FIRST}`,
        filter.values,
      );
    },

    page(status: number | undefined, page: Page): Promise<OrderRow[]> {
      const filter = where(status);
      // The page's ids come from the index alone, so a deep offset skips index
      // entries rather than joined rows; only the page itself is joined.
      const limit = limitClause(page);
      return db.select<OrderRow>(
        `${COLUMNS}
         FROM (SELECT o.id FROM orders o${filter.sql}${NEWEST_FIRST}${limit.sql}) page
         JOIN orders o ON o.id = page.id${JOINS}${NEWEST_FIRST}`,
        [...filter.values, ...limit.values],
      );
    },

    async count(status: number | undefined): Promise<number> {
      const filter = where(status);
      const [row] = await db.select<{ total: number }>(
        `SELECT COUNT(*) AS total FROM orders o${filter.sql}`,
        filter.values,
      );
      return row?.total ?? 0;
    },

    /** Only the order is written: no stock change, no price capture. */
    insert(order: NewOrder): Promise<number> {
      return db.insert(
        'INSERT INTO orders (service_id, user_name, user_phone) VALUES (?, ?, ?)',
        [order.service_id, order.user_name, order.user_phone],
        `service ${order.service_id} does not exist`,
      );
    },
  };
}

export type OrderRepository = ReturnType<typeof orderRepository>;
