import { NotFoundError } from '@svc/common';
import type { z } from 'zod';
import type { Database } from '../db/database.js';
import { isoTime } from '../db/iso-time.js';
import { type ListReads, limitClause, type Page } from '../db/page.js';
import type { IdempotencyRepository, RequestKey } from '../idempotency/idempotency.repository.js';
import type { merchantRow, NewMerchant } from './merchant.schema.js';

type MerchantRow = z.output<typeof merchantRow>;

/** A merchant row as JSON text, written by MySQL: the fields and order the page's SELECT gives. */
const MERCHANT_JSON = `
  SELECT CAST(CONCAT(
    '{"id":', id, ',"name":', JSON_QUOTE(name), ',"address":', JSON_QUOTE(address),
    ',"phone":', JSON_QUOTE(phone), ',"status":', status,
    ',"create_time":"', ${isoTime('create_time')}, '"}') AS BINARY)
  FROM merchants ORDER BY id`;

export function merchantRepository(db: Database, keys: IdempotencyRepository) {
  return {
    /** Every merchant in id order. */
    list(): ListReads<MerchantRow> {
      return {
        all: () => db.selectJson(MERCHANT_JSON),
        page(page: Page) {
          const limit = limitClause(page);
          return db.select<MerchantRow>(
            `SELECT id, name, address, phone, status, ${isoTime('create_time')} AS create_time FROM merchants ORDER BY id${limit.sql}`,
            limit.values,
          );
        },
        async count() {
          const [row] = await db.select<{ total: number }>(
            'SELECT COUNT(*) AS total FROM merchants',
          );
          return row?.total ?? 0;
        },
      };
    },

    /** With `key`, the request's Idempotency-Key is kept in the same transaction. */
    insert(merchant: NewMerchant, key?: RequestKey): Promise<number> {
      return db.insert(
        'INSERT INTO merchants (name, address, phone) VALUES (?, ?, ?)',
        [merchant.name, merchant.address, merchant.phone],
        undefined,
        key && keys.keep([{ key, row: 0 }]),
      );
    },

    /** Status 1; a 404 when no merchant has the id. */
    async approve(id: number): Promise<void> {
      const found = (await db.update('UPDATE merchants SET status = 1 WHERE id = ?', [id])) > 0;
      if (!found) throw new NotFoundError('merchant', id);
    },
  };
}

export type MerchantRepository = ReturnType<typeof merchantRepository>;
