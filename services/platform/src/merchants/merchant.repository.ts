import { NotFoundError } from '@svc/common';
import type { Created, KeptKeys } from '../idempotency/kept-keys.js';
import type { RequestKey } from '../idempotency/key-rows.js';
import type { PlatformDatabase } from '../store/database.js';
import { changeEvent, type EventSource, newRowEvents } from '../store/events/outbox.js';
import { newRowsAround } from '../store/new-rows.js';
import { type ListReads, limitClause, type Page } from '../store/page.js';
import {
  jsonColumn,
  numberField,
  type RowField,
  selectColumns,
  textField,
  timeField,
} from '../store/row-fields.js';
import type { MerchantRow, NewMerchant } from './merchant.schema.js';

/** A merchant row's fields, in the order the answers write them. */
const MERCHANT_FIELDS = {
  id: numberField('id'),
  name: textField('name'),
  address: textField('address'),
  phone: textField('phone'),
  status: numberField('status'),
  create_time: timeField('create_time'),
} satisfies Record<keyof MerchantRow, RowField>;

const MERCHANT_COLUMNS = selectColumns(MERCHANT_FIELDS);
const MERCHANT_JSON = `SELECT ${jsonColumn(MERCHANT_FIELDS)} FROM merchants ORDER BY id`;

/** A merchant's events carry it as the merchant list shows it. */
export const MERCHANT_EVENTS: EventSource = {
  from: 'merchants',
  id: 'id',
  fields: MERCHANT_FIELDS,
};

/** A new merchant's event INSERT, made once. */
const ADDED_EVENTS = newRowEvents('merchant.added', 1);

export function merchantRepository(db: PlatformDatabase, keys: KeptKeys) {
  const around = newRowsAround(keys, { events: () => ADDED_EVENTS });
  return {
    /** Every merchant in id order. */
    list(): ListReads<MerchantRow> {
      return {
        all: () => db.lists.selectJson(MERCHANT_JSON),
        page(page: Page) {
          const limit = limitClause(page);
          return db.lists.select<MerchantRow>(
            `SELECT ${MERCHANT_COLUMNS} FROM merchants ORDER BY id${limit.sql}`,
            limit.values,
          );
        },
        async count() {
          const [row] = await db.lists.select<{ total: number }>(
            'SELECT COUNT(*) AS total FROM merchants',
          );
          return { rows: row?.total ?? 0, counted: true };
        },
      };
    },

    /**
     * With its merchant.added event and, with `key`, the request's
     * Idempotency-Key, in the same transaction (once per key: idempotency/kept-keys.ts).
     */
    create(merchant: NewMerchant, key?: RequestKey): Promise<Created> {
      const values = [merchant.name, merchant.address, merchant.phone];
      const write = (kept?: RequestKey) =>
        db.insert(
          'INSERT INTO merchants (name, address, phone) VALUES (?, ?, ?)',
          values,
          (waits) => around([{ values, key: kept }], waits),
        );
      return key ? keys.once(key, write) : write().then((id) => ({ id, replayed: false }));
    },

    /** Status 1, with a merchant.approved event when it changes; a NotFoundError when no merchant has the id. */
    async approve(id: number): Promise<void> {
      const found = await db.change([
        { sql: 'SELECT 1 FROM merchants WHERE id = ? FOR UPDATE', values: [id] },
        { sql: 'UPDATE merchants SET status = ? WHERE id = ? AND status <> ?', values: [1, id, 1] },
        changeEvent('merchant.approved', id, 1),
      ]);
      if (!found) throw new NotFoundError('merchant', id);
    },
  };
}

export type MerchantRepository = ReturnType<typeof merchantRepository>;
