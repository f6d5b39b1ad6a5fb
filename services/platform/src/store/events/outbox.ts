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
 * An event's id is given by the transaction that writes it, from
 * event_counter's 'events' row, locked until that transaction commits: the
 * next transaction to take the row reads the ids the last one gave, so ids
 * increase in the order events are published (become readable), with no
 * gaps. Not in commit order across rows: a transaction that finds the row
 * held commits with events that the next publish step numbers, after ids
 * that later commits took. A transaction that finds the row held by another
 * does not wait for it (SKIP LOCKED): its events are written with no id
 * (@event_id NULL), and the publisher numbers them once they have committed
 * (publish.ts). Nor does it take the row while a committed event waits for
 * the publisher: that event may be one this change follows (the order
 * created before it is completed), so its id must come first. Taken after
 * every other lock of the transaction, the row is held for the rest of one
 * round trip, by the server alone.
 */
const TAKE_IDS: Statement[] = [
  {
    sql: `SET @event_id = NULL, @events_waiting = EXISTS (SELECT 1 FROM events ${UNNUMBERED} WHERE id IS NULL)`,
    values: [],
  },
  {
    sql: "SELECT last_id INTO @event_id FROM event_counter WHERE name = IF(@events_waiting, '', 'events') FOR UPDATE SKIP LOCKED",
    values: [],
  },
];
/** After the events' INSERT: the counter moves past the ids it gave (none without the row). */
const GIVE_IDS: Statement[] = [
  { sql: 'SET @event_count = ROW_COUNT()', values: [] },
  {
    sql: "UPDATE event_counter SET last_id = last_id + @event_count WHERE name = IF(@event_id IS NULL, '', 'events')",
    values: [],
  },
];

/** Each type's event statements for each row count, made once (a shared INSERT makes one per statement). */
const newRowStatements = new Map<EventType, Statement[][]>();

/**
 * The events of the rows of the INSERT just before them in the same
 * transaction, one each: rows LAST_INSERT_ID() + i * step, i from 0 (see
 * Database.insert), ids @event_id + 1 + i. An event names its row and the
 * status the change left, 0 for every new row (the spec's first state of
 * each resource); its data is built from them when read (event-data.ts).
 * Written whole by the SQL text, with no placeholder and no read of the rows,
 * it costs the transaction little.
 */
export function newRowEvents(type: EventType, count: number): Statement[] {
  const made = newRowStatements.get(type) ?? [];
  newRowStatements.set(type, made);
  made[count] ??= [
    ...TAKE_IDS,
    {
      sql: `INSERT INTO events (id, type, row_id, row_status) VALUES ${Array.from(
        { length: count },
        (_row, i) =>
          `(@event_id + ${i + 1}, '${type}', LAST_INSERT_ID() + ${i} * @@auto_increment_increment, 0)`,
      ).join(', ')}`,
      values: [],
    },
    ...GIVE_IDS,
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
 * changes it, with its event. Ids are taken after the UPDATE, under every
 * lock the change holds: the row's create has committed by then, and its
 * event is numbered or waiting, so this one follows it.
 */
export function changeEvent(type: EventType, id: number, status: number): Statement[] {
  return [
    { sql: 'SET @status_changed = ROW_COUNT()', values: [] },
    ...TAKE_IDS,
    {
      sql: `INSERT INTO events (id, type, row_id, row_status)
        SELECT @event_id + 1, ?, ?, ? FROM DUAL WHERE @status_changed > 0`,
      values: [type, id, status],
    },
    ...GIVE_IDS,
  ];
}

/**
 * The event of a change to a row that no list shows (a webhook), after the
 * UPDATE that makes it, as changeEvent writes one: its data is the JSON
 * text `data` selects, kept with the event as the row was then.
 */
export function changeEventOf(type: EventType, id: number, data: Statement): Statement[] {
  return [
    { sql: 'SET @status_changed = ROW_COUNT()', values: [] },
    ...TAKE_IDS,
    {
      sql: `INSERT INTO events (id, type, row_id, data)
        SELECT @event_id + 1, ?, ?, (${data.sql}) FROM DUAL WHERE @status_changed > 0`,
      values: [type, id, ...data.values],
    },
    ...GIVE_IDS,
  ];
}
