import { MERCHANT_EVENTS } from '../merchants/merchant.repository.js';
import { SERVICE_EVENTS } from '../offerings/service.repository.js';
import {
  ORDER_EVENT_HEAD,
  SERVICE_LOOKUP,
  type ServiceLookupRow,
  serviceTails,
} from '../orders/order-rows.js';
import type { PlatformDatabase } from '../store/database.js';
import { eventRows } from '../store/events/event-rows.js';
import type { EventSource } from '../store/events/outbox.js';
import { jsonColumn, numberField } from '../store/row-fields.js';

/** An event's resource: the first word of its type. */
const RESOURCE = "SUBSTRING_INDEX(e.type, '.', 1)";

/** The source of each other type's data, by its resource. */
const SOURCES: Record<string, EventSource> = {
  merchant: MERCHANT_EVENTS,
  service: SERVICE_EVENTS,
};

/**
 * An event's data as SQL on `events e`: its row as the row's list returns it,
 * with the status the change left (row_status). Built when read, not when
 * written, because it is the same either way: no route changes a row's
 * fields other than its status, or deletes a row. `data` holds it for the
 * events written before row_id (migration 008); 'null' if the row is gone.
 * An order's, most events (one per create), is joined, and its service's
 * fields looked up once per read: a subquery per event, as the rarer
 * resources' are read, costs MySQL about twice as much.
 */
const EVENT_JSON = `COALESCE(e.data, CASE ${RESOURCE} WHEN 'order' THEN ${ORDER_EVENT_HEAD} ${Object.entries(
  SOURCES,
)
  .map(
    ([resource, source]) =>
      `WHEN '${resource}' THEN (SELECT ${jsonColumn({ ...source.fields, status: numberField('e.row_status') })}
        FROM ${source.from} WHERE ${source.id} = e.row_id)`,
  )
  .join(' ')} END, 'null')`;

/** The published events, each with its data read from its row (store/events/event-rows.ts). */
export const eventRepository = (db: PlatformDatabase) =>
  eventRows(db, {
    joins: `LEFT JOIN orders o ON o.id = e.row_id AND e.data IS NULL AND ${RESOURCE} = 'order'`,
    json: EVENT_JSON,
    restKey: 'o.service_id',
    rests: async (serviceIds) =>
      serviceTails(
        await db.select<ServiceLookupRow>(
          `${SERVICE_LOOKUP} WHERE s.id IN (${serviceIds.map(() => '?').join(', ')})`,
          serviceIds,
        ),
      ),
  });

export type EventRepository = ReturnType<typeof eventRepository>;
