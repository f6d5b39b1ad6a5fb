import {
  decimalField,
  jsonColumn,
  jsonTail,
  nullableTextField,
  numberField,
  type RowField,
  selectColumns,
  textField,
  timeField,
} from '../store/row-fields.js';
import type { OrderRow } from './order.schema.js';

/** An order's own fields, which the whole list has MySQL write as JSON text. */
const ORDER_OWN_FIELDS = {
  id: numberField('o.id'),
  service_id: numberField('o.service_id'),
  user_name: textField('o.user_name'),
  user_phone: textField('o.user_phone'),
  create_time: timeField('o.create_time'),
  status: numberField('o.status'),
} satisfies Partial<Record<keyof OrderRow, RowField>>;

/**
 * Its service's fields, null without a service: joined for a page, appended
 * to each row of the whole list from one lookup of the services it names.
 * server_name is the spec's name for the service name.
 */
const ORDER_SERVICE_FIELDS = {
  server_name: nullableTextField('s.name'),
  service_name: nullableTextField('s.name'),
  price: decimalField('s.price'),
  merchant_name: nullableTextField('m.name'),
} satisfies Partial<Record<keyof OrderRow, RowField>>;

/** An order row, in the order the answers write its fields. */
const ORDER_FIELDS = {
  ...ORDER_OWN_FIELDS,
  ...ORDER_SERVICE_FIELDS,
} satisfies Record<keyof OrderRow, RowField>;

/** The columns of a page's rows: FROM orders o, then SERVICE_JOINS. */
export const ORDER_COLUMNS = selectColumns(ORDER_FIELDS);

export const SERVICE_JOINS = `
  LEFT JOIN services s ON s.id = o.service_id
  LEFT JOIN merchants m ON m.id = s.merchant_id`;

/** An order's own fields as JSON text, open for its service's (see withServices). */
export const ORDER_JSON_HEAD = jsonColumn(ORDER_OWN_FIELDS, { open: true });

/**
 * An order's event carries the order as the list shows it, with the status
 * the change left: its own fields as JSON text, open, on `events e` joined
 * to the order `o`; its service's fields close it (serviceTails).
 */
export const ORDER_EVENT_HEAD = jsonColumn(
  { ...ORDER_OWN_FIELDS, status: numberField('e.row_status') },
  { open: true },
);

/** Services by id with the fields an order shows of them. */
export const SERVICE_LOOKUP = `SELECT s.id, ${selectColumns(ORDER_SERVICE_FIELDS)}
  FROM services s LEFT JOIN merchants m ON m.id = s.merchant_id`;

export type ServiceLookupRow = { id: number } & Record<string, unknown>;

const NO_SERVICE = jsonTail(ORDER_SERVICE_FIELDS, undefined);

/** The close of an order's JSON text by its service id: that service's fields (null ones for an id not among `services`) and the brace. */
export function serviceTails(services: ServiceLookupRow[]): (serviceId: number) => Buffer {
  const tails = new Map(services.map((row) => [row.id, jsonTail(ORDER_SERVICE_FIELDS, row)]));
  return (serviceId) => tails.get(serviceId) ?? NO_SERVICE;
}

const COMMA = Buffer.from(',');

/**
 * Whole orders as JSON text, comma-separated, one piece per batch: each
 * order's head (ORDER_JSON_HEAD, and its service_id) with its service's
 * fields from `services` appended.
 */
export async function* withServices(
  services: ServiceLookupRow[],
  batches: AsyncIterable<[Buffer, number][]>,
): AsyncIterable<Buffer> {
  const tail = serviceTails(services);
  for await (const batch of batches) {
    const parts: Buffer[] = [];
    for (const [head, serviceId] of batch) {
      if (parts.length > 0) parts.push(COMMA);
      parts.push(head, tail(serviceId));
    }
    yield Buffer.concat(parts);
  }
}
