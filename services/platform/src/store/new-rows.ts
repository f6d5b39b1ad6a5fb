import type { Database, ResultSetHeader, Statement } from '@svc/common';

/** What commits with the rows of one INSERT, in its transaction: statements before it and after it. */
export interface Around {
  before: Statement[];
  after: Statement[];
}

export const NOTHING_AROUND: Around = { before: [], after: [] };

/** A row to write: its values, in the columns' order, and the key that comes with it. */
export interface SharedRow<Key> {
  values: unknown[];
  key: Key | undefined;
}

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

const AUTO_INCREMENT_STEP = 'SELECT @@auto_increment_increment AS step';

/**
 * insertRows on common's Database. InnoDB reserves the ids of an INSERT whose
 * row count it knows in one step, in every innodb_autoinc_lock_mode, so its
 * rows get consecutive ids, auto_increment_increment apart, from the first
 * (the insertId); that setting is read once (per-session changes are not
 * followed). With statements `around` it, one transaction holds them all,
 * in one round trip; alone, it is a prepared statement.
 */
export function insertRowsOn(
  db: Pick<Database, 'select' | 'transaction' | 'write'>,
): (sql: string, rows: unknown[][], around?: Around) => Promise<number[]> {
  let idStep: Promise<number> | undefined;
  const autoIncrementStep = () =>
    (idStep ??= db.select<{ step: number }>(AUTO_INCREMENT_STEP).then(
      ([row]) => Number(row?.step ?? 1),
      (err) => {
        idStep = undefined;
        throw err;
      },
    ));
  const inserted = async (sql: string, values: unknown[], { before, after }: Around) =>
    before.length + after.length > 0
      ? ((await db.transaction([...before, { sql, values }, ...after]))[
          before.length
        ] as ResultSetHeader)
      : db.write(sql, values);

  return async (sql, rows, around = NOTHING_AROUND) => {
    const step = rows.length > 1 ? await autoIncrementStep() : 1;
    const result = await inserted(sql, rows.flat(), around);
    return Array.from({ length: rows.length }, (_row, i) => result.insertId + i * step);
  };
}
