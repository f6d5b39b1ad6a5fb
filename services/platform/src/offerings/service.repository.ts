import { NotFoundError } from '@svc/common';
import type { z } from 'zod';
import type { Database } from '../db/database.js';
import { isoTime } from '../db/iso-time.js';
import { type ListReads, limitClause, type Page } from '../db/page.js';
import type { IdempotencyRepository, RequestKey } from '../idempotency/idempotency.repository.js';
import type { NewService, serviceRow } from './service.schema.js';

/** Price is the DECIMAL's text, as MySQL gives it ("150.00"). */
type ServiceRow = z.output<typeof serviceRow>;

const SELECT_ROWS = `
  SELECT s.id, s.merchant_id, s.name, s.price, s.category, s.image_url, s.stock, s.status,
         ${isoTime('s.create_time')} AS create_time, m.name AS merchant_name
  FROM services s LEFT JOIN merchants m ON m.id = s.merchant_id`;

/**
 * A service row as JSON text, written by MySQL, so a whole list is sent as
 * read, never decoded and re-encoded (as the order list is): the same fields,
 * in the same order, as SELECT_ROWS gives JSON.stringify.
 */
const SERVICE_JSON = `
  SELECT CAST(CONCAT(
    '{"id":', s.id, ',"merchant_id":', s.merchant_id, ',"name":', JSON_QUOTE(s.name),
    ',"price":"', s.price, '","category":', JSON_QUOTE(s.category),
    ',"image_url":', IFNULL(JSON_QUOTE(s.image_url), 'null'),
    ',"stock":', s.stock, ',"status":', s.status,
    ',"create_time":"', ${isoTime('s.create_time')},
    '","merchant_name":', IFNULL(JSON_QUOTE(m.name), 'null'), '}') AS BINARY)
  FROM services s LEFT JOIN merchants m ON m.id = s.merchant_id`;

/**
 * `=` on a PAD SPACE collation (utf8mb4_bin included) ignores trailing spaces,
 * so equal byte lengths make the match exact; the index still serves `=`.
 */
function where(category: string | undefined) {
  return category === undefined
    ? { sql: '', values: [] }
    : {
        sql: ' WHERE s.category = ? AND OCTET_LENGTH(s.category) = OCTET_LENGTH(?)',
        values: [category, category],
      };
}

export function serviceRepository(db: Database, keys: IdempotencyRepository) {
  return {
    /** Every service of the category (or of all) in id order, with its merchant's name. */
    list(category: string | undefined): ListReads<ServiceRow> {
      const filter = where(category);
      return {
        all: () => db.selectJson(`${SERVICE_JSON}${filter.sql} ORDER BY s.id`, filter.values),
        page(page: Page) {
          const limit = limitClause(page);
          return db.select<ServiceRow>(`${SELECT_ROWS}${filter.sql} ORDER BY s.id${limit.sql}`, [
            ...filter.values,
            ...limit.values,
          ]);
        },
        async count() {
          const [row] = await db.select<{ total: number }>(
            `SELECT COUNT(*) AS total FROM services s${filter.sql}`,
            filter.values,
          );
          return row?.total ?? 0;
        },
      };
    },

    /** With `key`, the request's Idempotency-Key is kept in the same transaction. */
    insert(service: NewService, key?: RequestKey): Promise<number> {
      return db.insert(
        `INSERT INTO services (merchant_id, name, price, category, image_url, stock)
         VALUES (?, ?, ?, ?, ?, ?)`,
        [
          service.merchant_id,
          service.name,
          service.price,
          service.category,
          service.image_url,
          service.stock,
        ],
        `merchant ${service.merchant_id} does not exist`,
        key && keys.keep([{ key, row: 0 }]),
      );
    },

    /** On the shelf (1) or off it (0); a 404 when no service has the id. */
    async setStatus(id: number, status: 0 | 1): Promise<void> {
      const found =
        (await db.update('UPDATE services SET status = ? WHERE id = ?', [status, id])) > 0;
      if (!found) throw new NotFoundError('service', id);
    },
  };
}

export type ServiceRepository = ReturnType<typeof serviceRepository>;
