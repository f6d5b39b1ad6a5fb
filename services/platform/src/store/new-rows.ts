import type { Statement } from '@svc/common';
import { type Around, NOTHING_AROUND } from './database.js';
import type { SharedRow } from './shared-inserts.js';

/** How rows' keys are kept with them (idempotency/kept-keys.ts). */
interface RowKeys<Key> {
  /** After the rows' INSERT: each key with its row; nothing without keys. */
  keep(keys: (Key | undefined)[]): Statement[];
  /** Around a row written on its own: its key before its INSERT, linked after. */
  keepFirst(key: Key): Around;
}

/** The table of the row each new row names (its foreign key), and where its id is in the row's values. */
interface Parent {
  table: string;
  idAt: number;
}

/** The share-lock of each parent table and id count, made once. */
const parentLocks = new Map<string, string[]>();

/**
 * The parents' rows locked for share without waiting, so a parent another
 * transaction holds (an admin's long transaction, a migration) fails the
 * statement at once instead of stalling it and every row it shares. The
 * rows' own INSERT takes the same locks for its foreign key.
 */
function parentsLocked<Key>({ table, idAt }: Parent, rows: SharedRow<Key>[]): Statement {
  const ids = [...new Set(rows.map((row) => row.values[idAt]))];
  const made = parentLocks.get(table) ?? [];
  parentLocks.set(table, made);
  made[ids.length] ??=
    `SELECT 1 FROM ${table} WHERE id IN (${ids.map(() => '?').join(', ')}) LOCK IN SHARE MODE NOWAIT`;
  return { sql: made[ids.length] as string, values: ids };
}

/**
 * What commits with new rows of one resource (common's Around), given to its
 * INSERT: its parents' locks first (NOWAIT), the rows' keys
 * and `events(count)`, the rows' events. A row written on its own that may
 * wait (`waits`) waits for its parent in its INSERT and has its key written
 * first, so the key reads as in flight everywhere while it waits.
 */
export function newRowsAround<Key>(
  keys: RowKeys<Key>,
  { parent, events }: { parent?: Parent; events: (count: number) => Statement[] },
) {
  return (rows: SharedRow<Key>[], waits: boolean): Around => {
    if (waits) {
      const key = rows[0]?.key;
      const kept = key ? keys.keepFirst(key) : NOTHING_AROUND;
      return { before: kept.before, after: [...kept.after, ...events(1)] };
    }
    const kept = rows.some((row) => row.key) ? keys.keep(rows.map((row) => row.key)) : [];
    return {
      before: parent ? [parentsLocked(parent, rows)] : [],
      after: [...kept, ...events(rows.length)],
    };
  };
}
