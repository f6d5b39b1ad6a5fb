import type { Statement } from '@svc/common';
import type { RowField } from '../db/row-fields.js';

/** Every change the platform makes, as an event type. */
export const EVENT_TYPES = [
  'order.created',
  'order.completed',
  'merchant.added',
  'merchant.approved',
  'service.added',
  'service.published',
  'service.unpublished',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Where an event's data is read: a resource's rows as its list returns them
 * (`fields`, whose `status` is the row's status column), `from` its tables,
 * `id` its key; `table` is where its changes are written.
 */
export interface EventSource {
  table: string;
  from: string;
  id: string;
  fields: Record<string, RowField> & { status: RowField };
}

/** Each type's event INSERT for each row count, made once (a shared INSERT makes one per statement). */
const newRowStatements = new Map<EventType, string[]>();

/**
 * The INSERT of one event per row of the INSERT just before it in the same
 * transaction: rows LAST_INSERT_ID() + i * step, i from 0 (see
 * Database.insert). An event names its row and the status the change left,
 * 0 for every new row (the spec's first state of each resource); its data is
 * built from them when read (event-data.ts). Written whole by the SQL text, with no
 * placeholder and no read of the rows, it costs the transaction little.
 */
export function newRowEvents(type: EventType, count: number): Statement {
  const made = newRowStatements.get(type) ?? [];
  newRowStatements.set(type, made);
  made[count] ??= `INSERT INTO events (type, row_id, row_status) VALUES ${Array.from(
    { length: count },
    (_row, i) => `('${type}', LAST_INSERT_ID() + ${i} * @@auto_increment_increment, 0)`,
  ).join(', ')}`;
  return { sql: made[count], values: [] };
}

/**
 * A status change and its event, as one transaction: the row is locked first
 * (its SELECT answers whether it exists), the event is written only when the
 * status changes (setting a status it has is no change), then the row is changed.
 */
export function statusChange(
  source: EventSource,
  id: number,
  status: number,
  type: EventType,
): Statement[] {
  return [
    { sql: `SELECT 1 FROM ${source.table} WHERE id = ? FOR UPDATE`, values: [id] },
    {
      sql: `INSERT INTO events (type, row_id, row_status)
        SELECT ?, id, ? FROM ${source.table} WHERE id = ? AND status <> ?`,
      values: [type, status, id, status],
    },
    { sql: `UPDATE ${source.table} SET status = ? WHERE id = ?`, values: [status, id] },
  ];
}
