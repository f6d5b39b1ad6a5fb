import { MERCHANT_EVENTS } from '../merchants/merchant.repository.js';
import { SERVICE_EVENTS } from '../offerings/service.repository.js';
import { ORDER_EVENTS } from '../orders/order-rows.js';
import type { PlatformDatabase } from '../store/database.js';
import { eventRows } from '../store/events/event-rows.js';
import type { EventSource } from '../store/events/outbox.js';
import { jsonColumn, numberField } from '../store/row-fields.js';

/** The source of each type's data, by the type's first word. */
const SOURCES: Record<string, EventSource> = {
  order: ORDER_EVENTS,
  merchant: MERCHANT_EVENTS,
  service: SERVICE_EVENTS,
};

/**
 * An event's data as SQL on `events e`: its row as the row's list returns it,
 * with the status the change left (row_status). Built when read, not when
 * written, because it is the same either way: no route changes a row's
 * fields other than its status, or deletes a row. `data` holds it for the
 * events written before row_id (migration 008); 'null' if the row is gone.
 */
const EVENT_DATA = `COALESCE(e.data, CASE SUBSTRING_INDEX(e.type, '.', 1) ${Object.entries(SOURCES)
  .map(
    ([resource, source]) =>
      `WHEN '${resource}' THEN (SELECT ${jsonColumn({ ...source.fields, status: numberField('e.row_status') })}
        FROM ${source.from} WHERE ${source.id} = e.row_id)`,
  )
  .join(' ')} END, 'null')`;

/** The published events, each with its data read from its row (store/events/event-rows.ts). */
export const eventRepository = (db: PlatformDatabase) => eventRows(db, EVENT_DATA);

export type EventRepository = ReturnType<typeof eventRepository>;
