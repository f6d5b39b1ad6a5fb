import { LockConflictError, OutcomeUnknownError, StoreUnavailableError } from '@svc/common';
import type { Around, SharedRow } from './new-rows.js';

interface WaitingRow<Key> extends SharedRow<Key> {
  resolve: (id: number) => void;
  reject: (err: unknown) => void;
}

export interface SharedInsertOptions<Key> {
  table: string;
  /** The columns each row gives, in the order of its values. */
  columns: string[];
  /** Statements running at once; rows that arrive while all of them run wait for the next. */
  concurrency: number;
  /** Rows in one statement at most. */
  maxRows?: number;
  /** Rows that may wait for a turn; one more is refused. */
  maxWaiting: number;
  /**
   * Rows written on their own with a wait for a lock (see `around`) at once,
   * at most; past that a row that meets a lock is a LockConflictError at once.
   */
  maxWaitingAlone: number;
  /**
   * What commits with `rows`, in their order, in the same transaction. With
   * `waits` false nothing of it may wait for a lock: a row another
   * transaction holds (a parent row, a key) fails it at once, NOWAIT. With
   * `waits` true it is one row written on its own, which may wait for its
   * parent, bounded by the server's lock wait.
   */
  around: (rows: SharedRow<Key>[], waits: boolean) => Around;
}

/**
 * INSERTs into one table that share a statement when they arrive together.
 * A row that finds a statement free is written at once, alone; rows that
 * arrive while `concurrency` statements run wait, and the first to end hands
 * its turn to all of them (up to `maxRows`) as one multi-row INSERT: one round
 * trip, one commit and one redo-log flush instead of one each. Nothing waits
 * on a timer.
 *
 * A shared statement waits for no lock (`around` with `waits` false), so a
 * row another transaction holds never stalls the rows sharing its turn. It is
 * atomic. When the server is out of reach, or the statement's outcome is
 * unknown, every row gets that failure (none is written again). When it fails
 * for anything else, such as one row naming a missing service or a held one,
 * nothing of it was written: each row is then written alone, still without
 * waiting, and gets its own answer. A row whose write alone met another
 * transaction's lock (a held parent row, a deadlock) is written once more on
 * its own, with a bounded wait for that lock (`around` with `waits` true),
 * outside the turns, so the rows after it are written meanwhile; that second
 * try's failure is the row's answer.
 *
 * At most `maxWaiting` rows wait for a turn; a row beyond that is refused at
 * once as store-unavailable, as the pool's own queue refuses a query, so a
 * hung server cannot pile up waiting rows.
 */
export function sharedInserts<Key>(
  db: { insertRows(sql: string, rows: unknown[][], around?: Around): Promise<number[]> },
  {
    table,
    columns,
    concurrency,
    maxRows = 32,
    maxWaiting,
    maxWaitingAlone,
    around,
  }: SharedInsertOptions<Key>,
) {
  const waiting: WaitingRow<Key>[] = [];
  let running = 0;
  let waitingAlone = 0;
  const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
  const group = `(${columns.map(() => '?').join(', ')})`;
  /** The statement text for each row count, made once. */
  const statements: string[] = [];
  const statementFor = (rows: number) =>
    (statements[rows] ??= head + new Array(rows).fill(group).join(', '));

  const insert = (rows: WaitingRow<Key>[], waits: boolean) =>
    db.insertRows(
      statementFor(rows.length),
      rows.map((row) => row.values),
      around(rows, waits),
    );

  /** The second try of a row that met a lock: on its own, outside the turns. */
  function writeWaiting(row: WaitingRow<Key>): void {
    if (waitingAlone >= maxWaitingAlone) {
      row.reject(new LockConflictError());
      return;
    }
    waitingAlone += 1;
    insert([row], true)
      .then(([id]) => row.resolve(id as number), row.reject)
      .finally(() => {
        waitingAlone -= 1;
      });
  }

  const writeAlone = (row: WaitingRow<Key>) =>
    insert([row], false).then(
      ([id]) => row.resolve(id as number),
      (err: unknown) => (err instanceof LockConflictError ? writeWaiting(row) : row.reject(err)),
    );

  async function write(rows: WaitingRow<Key>[]): Promise<void> {
    if (rows.length === 1) return writeAlone(rows[0] as WaitingRow<Key>);
    try {
      const ids = await insert(rows, false);
      for (const [i, row] of rows.entries()) row.resolve(ids[i] as number);
    } catch (err) {
      if (err instanceof StoreUnavailableError || err instanceof OutcomeUnknownError) {
        for (const row of rows) row.reject(err);
        return;
      }
      await Promise.all(rows.map(writeAlone));
    }
  }

  function startWaiting(): void {
    while (running < concurrency && waiting.length > 0) {
      running += 1;
      write(waiting.splice(0, maxRows)).finally(() => {
        running -= 1;
        startWaiting();
      });
    }
  }

  return {
    /** Writes one row, with its key when given; resolves to its id. */
    insert: (values: unknown[], key?: Key): Promise<number> =>
      new Promise((resolve, reject) => {
        if (waiting.length >= maxWaiting) {
          reject(new StoreUnavailableError('mysql', new Error(`${table}: too many rows waiting`)));
          return;
        }
        waiting.push({ values, key, resolve, reject });
        startWaiting();
      }),
    /** Rows waiting for a turn (a metric: they wait for a connection, as the pool's queue does). */
    waiting: (): number => waiting.length,
  };
}
