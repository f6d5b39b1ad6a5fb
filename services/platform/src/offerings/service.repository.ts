import { NotFoundError } from '@svc/common';
import type { Created, KeptKeys } from '../idempotency/kept-keys.js';
import type { RequestKey } from '../idempotency/key-rows.js';
import { naming, type PlatformDatabase } from '../store/database.js';
import { changeEvent, type EventSource, newRowEvents } from '../store/events/outbox.js';
import { newRowsAround } from '../store/new-rows.js';
import { type ListReads, limitClause, type Page } from '../store/page.js';
import {
  decimalField,
  jsonColumn,
  nullableTextField,
  numberField,
  type RowField,
  selectColumns,
  textField,
  timeField,
} from '../store/row-fields.js';
import type { NewService, ServiceRow } from './service.schema.js';

/** A service row's fields, with its merchant's name, in the order the answers write them. */
const SERVICE_FIELDS = {
  id: numberField('s.id'),
  merchant_id: numberField('s.merchant_id'),
  name: textField('s.name'),
  price: decimalField('s.price'),
  category: textField('s.category'),
  image_url: nullableTextField('s.image_url'),
  stock: numberField('s.stock'),
  status: numberField('s.status'),
  create_time: timeField('s.create_time'),
  merchant_name: nullableTextField('m.name'),
} satisfies Record<keyof ServiceRow, RowField>;

const TABLES = 'services s LEFT JOIN merchants m ON m.id = s.merchant_id';
const FROM = `FROM ${TABLES}`;
const SELECT_ROWS = `SELECT ${selectColumns(SERVICE_FIELDS)} ${FROM}`;
/** The rows as JSON text written by MySQL, so a whole list is sent as read. */
const SELECT_JSON = `SELECT ${jsonColumn(SERVICE_FIELDS)} ${FROM}`;

/** A service's events carry it as the service list shows it. */
export const SERVICE_EVENTS: EventSource = {
  from: TABLES,
  id: 's.id',
  fields: SERVICE_FIELDS,
};

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

/** A new service's event INSERT, made once. */
const ADDED_EVENTS = newRowEvents('service.added', 1);

export function serviceRepository(db: PlatformDatabase, keys: KeptKeys) {
  const around = newRowsAround(keys, {
    parent: { table: 'merchants', idAt: 0 },
    events: () => ADDED_EVENTS,
  });
  return {
    /** Every service of the category (or of all) in id order, with its merchant's name. */
    list(category: string | undefined): ListReads<ServiceRow> {
      const filter = where(category);
      return {
        all: () => db.lists.selectJson(`${SELECT_JSON}${filter.sql} ORDER BY s.id`, filter.values),
        page(page: Page) {
          const limit = limitClause(page);
          return db.lists.select<ServiceRow>(
            `${SELECT_ROWS}${filter.sql} ORDER BY s.id${limit.sql}`,
            [...filter.values, ...limit.values],
          );
        },
        async count() {
          const [row] = await db.lists.select<{ total: number }>(
            `SELECT COUNT(*) AS total FROM services s${filter.sql}`,
            filter.values,
          );
          return { rows: row?.total ?? 0, counted: true };
        },
      };
    },

    /**
     * With its service.added event and, with `key`, the request's
     * Idempotency-Key, in the same transaction (once per key: idempotency/kept-keys.ts).
     * A merchant id no row has is a MissingReferenceError naming it.
     */
    create(service: NewService, key?: RequestKey): Promise<Created> {
      const write = async (kept?: RequestKey) => {
        try {
          return await db.insert(
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
            (waits) => around([{ values: [service.merchant_id], key: kept }], waits),
          );
        } catch (err) {
          throw naming(err, 'merchant', service.merchant_id);
        }
      };
      return key ? keys.once(key, write) : write().then((id) => ({ id, replayed: false }));
    },

    /**
     * On the shelf (1) or off it (0), with a service.published or
     * service.unpublished event when it changes; a NotFoundError when no
     * service has the id.
     */
    async setStatus(id: number, status: 0 | 1): Promise<void> {
      const type = status === 1 ? 'service.published' : 'service.unpublished';
      const found = await db.change([
        { sql: 'SELECT 1 FROM services WHERE id = ? FOR UPDATE', values: [id] },
        {
          sql: 'UPDATE services SET status = ? WHERE id = ? AND status <> ?',
          values: [status, id, status],
        },
        changeEvent(type, id, status),
      ]);
      if (!found) throw new NotFoundError('service', id);
    },
  };
}

export type ServiceRepository = ReturnType<typeof serviceRepository>;
