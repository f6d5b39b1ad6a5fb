import type { Statement } from '@svc/common';
import { jsonColumn, numberField, type RowField } from '../db/row-fields.js';

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
 * (`fields`, whose `status` is the row's status column), `from` its tables, `id` its key.
 */
export interface EventSource {
  table: string;
  from: string;
  id: string;
  fields: Record<string, RowField> & { status: RowField };
}

const NEW_ROW = 'LAST_INSERT_ID() + ? * @@auto_increment_increment';

/** Each source's event INSERT for each row count, made once (a shared INSERT makes one per statement). */
const newRowStatements = new Map<EventSource, string[]>();

/**
 * The INSERT of one event per row of the INSERT just before it in the same
 * transaction: rows LAST_INSERT_ID() + i * step, i from 0 (see
 * Database.insert), each read back as its list shows it. The rows are named
 * one by one, so InnoDB locks those records only (the transaction holds them
 * already), never a gap another create would wait on.
 */
export function newRowEvents(type: EventType, source: EventSource, count: number): Statement {
  const made = newRowStatements.get(source) ?? [];
  newRowStatements.set(source, made);
  made[count] ??=
    `INSERT INTO events (type, data) SELECT ?, ${jsonColumn(source.fields)} FROM ${source.from}
      WHERE ${source.id} IN (${new Array(count).fill(NEW_ROW).join(', ')}) ORDER BY ${source.id}`;
  return { sql: made[count], values: [type, ...ROW_NUMBERS.slice(0, count)] };
}

const ROW_NUMBERS = Array.from({ length: 1024 }, (_row, i) => i);

/**
 * A status change and its event, as one transaction: the row is locked first
 * (its SELECT answers whether it exists), the event is written only when the
 * status changes (setting a status it has is no change), with the row as it
 * will read once changed, then the row is changed.
 */
export function statusChange(
  source: EventSource,
  id: number,
  status: number,
  type: EventType,
): Statement[] {
  const statusColumn = source.fields.status.sql;
  const changed = { ...source.fields, status: numberField(String(status)) };
  return [
    { sql: `SELECT 1 FROM ${source.table} WHERE id = ? FOR UPDATE`, values: [id] },
    {
      sql: `INSERT INTO events (type, data) SELECT ?, ${jsonColumn(changed)} FROM ${source.from}
        WHERE ${source.id} = ? AND ${statusColumn} <> ?`,
      values: [type, id, status],
    },
    { sql: `UPDATE ${source.table} SET status = ? WHERE id = ?`, values: [status, id] },
  ];
}
