import type { Statement } from '@svc/common';
import type { RowField } from '../row-fields.js';

/**
 * The index to find the events not yet numbered by: id NULL, in seq order, so
 * a step reads only the rows it takes. They sit after every kept numbered
 * event; with a backlog a few percent of the table the optimizer would walk
 * the primary key from the oldest kept event instead, reading the whole table
 * (test/publish-backlog.test.ts).
 */
export const UNNUMBERED = 'FORCE INDEX (idx_events_id)';

/** Every change the platform makes, as an event type. */
export const EVENT_TYPES = [
  'order.created',
  'order.completed',
  'merchant.added',
  'merchant.approved',
  'service.added',
  'service.published',
  'service.unpublished',
  'webhook.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Where an event's data is read: a resource's rows as its list returns them
 * (`fields`, whose `status` is the row's status column), `from` its tables,
 * `id` its key.
 */
export interface EventSource {
  from: string;
  id: string;
  fields: Record<string, RowField> & { status: RowField };
}

/*
 * A writer inserts its events with no id (NULL) and never touches
 * event_counter: the publish step numbers them once they have committed
 * (publish.ts), so transactions that write events never wait for one
 * another, and several run at once (INSERT_CONCURRENCY).
 */

/** Each type's event statements for each row count, made once (a shared INSERT makes one per statement). */
const newRowStatements = new Map<EventType, Statement[][]>();

/**
 * The events of the rows of the INSERT just before them in the same
 * transaction, one each: rows LAST_INSERT_ID() + i * step, i from 0 (see
 * Database.insert). An event names its row and the
 * status the change left, 0 for every new row (the spec's first state of
 * each resource); its data is built from them when read (feed/event.repository.ts).
 * Written whole by the SQL text, with no placeholder and no read of the rows,
 * it costs the transaction little.
 */
export function newRowEvents(type: EventType, count: number): Statement[] {
  const made = newRowStatements.get(type) ?? [];
  newRowStatements.set(type, made);
  made[count] ??= [
    {
      sql: `INSERT INTO events (type, row_id, row_status) VALUES ${Array.from(
        { length: count },
        (_row, i) => `('${type}', LAST_INSERT_ID() + ${i} * @@auto_increment_increment, 0)`,
      ).join(', ')}`,
      values: [],
    },
  ];
  return made[count];
}

/**
 * The event of a status change, after the UPDATE that makes it in the same
 * transaction (which the resource writes: its table, its SQL): written
 * exactly when that UPDATE changed the row, from its ROW_COUNT(), so setting
 * a status a row has writes none. Each statement reads what has committed
 * when it runs (READ COMMITTED), so a row created while the change runs can
 * be missing from its first statement and present at its UPDATE, which then
 * changes it, with its event. Its seq follows its row's create's event, which
 * had committed by then, so the publisher numbers this one after it.
 */
export function changeEvent(type: EventType, id: number, status: number): Statement {
  return {
    sql: `INSERT INTO events (type, row_id, row_status)
      SELECT ?, ?, ? FROM DUAL WHERE ROW_COUNT() > 0`,
    values: [type, id, status],
  };
}

/**
 * The event of a change to a row that no list shows (a webhook), after the
 * UPDATE that makes it, as changeEvent writes one: its data is the JSON
 * text `data` selects, kept with the event as the row was then.
 */
export function changeEventOf(type: EventType, id: number, data: Statement): Statement {
  return {
    sql: `INSERT INTO events (type, row_id, data)
      SELECT ?, ?, (${data.sql}) FROM DUAL WHERE ROW_COUNT() > 0`,
    values: [type, id, ...data.values],
  };
}
