import type { Pool, ResultSetHeader } from 'mysql2/promise';
import { LockConflictError, StoreUnavailableError } from './errors.js';
import type { Database } from './mysql-database.js';
import { queryWithin, type Statement, transactionWithin } from './mysql-driver.js';
import { storeFailure } from './mysql-failures.js';

interface WaitingRow<Key> {
  values: unknown[];
  key: Key | undefined;
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
   * What commits with the rows, in the same transaction, given each row's
   * `key` (undefined for a row sent without one), in the rows' order.
   */
  alongside: (keys: (Key | undefined)[]) => Statement[];
}

/**
 * INSERTs into one table that share a statement when they arrive together.
 * A row that finds a statement free is written at once, alone; rows that
 * arrive while `concurrency` statements run wait, and the first to end hands
 * its turn to all of them (up to `maxRows`) as one multi-row INSERT: one round
 * trip, one commit and one redo-log flush instead of one each. Nothing waits
 * on a timer.
 *
 * A shared statement is atomic. When it fails because the server is out of
 * reach, every row gets that failure (a statement that timed out may still
 * commit, so none is written again). When it fails for anything else, such as
 * one row naming a missing service, nothing of it was written: each row is
 * then written alone and gets its own answer.
 *
 * A row may come with a key, which `alongside` writes in the same
 * transaction (such as an Idempotency-Key: a key already kept, or being
 * written by another transaction, fails the transaction at once, and each
 * row is then written alone).
 *
 * A statement the server gave up for another transaction's locks (a lost
 * deadlock or lock wait: a LockConflictError) is tried once more: a shared
 * one by writing each of its rows alone, a row alone by writing it again.
 * A second such failure is the row's answer.
 *
 * Every statement commits with its `alongside` statements (such as the rows'
 * events), so a row that committed has them and a row that did not has none.
 *
 * At most `maxWaiting` rows wait; a row beyond that is refused at once as
 * store-unavailable, as the pool's own queue refuses a query, so a hung server
 * cannot pile up waiting rows.
 */
export function sharedInserts<Key>(
  db: Pick<Database, 'insertRows'>,
  { table, columns, concurrency, maxRows = 32, maxWaiting, alongside }: SharedInsertOptions<Key>,
) {
  const waiting: WaitingRow<Key>[] = [];
  let running = 0;
  const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
  const group = `(${columns.map(() => '?').join(', ')})`;
  /** The statement text for each row count, made once. */
  const statements: string[] = [];
  const statementFor = (rows: number) =>
    (statements[rows] ??= head + new Array(rows).fill(group).join(', '));

  async function write(rows: WaitingRow<Key>[]): Promise<void> {
    let attemptsAlone = 2;
    if (rows.length > 1) {
      try {
        const ids = await db.insertRows(
          statementFor(rows.length),
          rows.map((row) => row.values),
          alongside(rows.map((row) => row.key)),
        );
        for (const [i, row] of rows.entries()) row.resolve(ids[i] as number);
        return;
      } catch (err) {
        if (err instanceof StoreUnavailableError) {
          for (const row of rows) row.reject(err);
          return;
        }
        // The shared statement's try was each row's first.
        if (err instanceof LockConflictError) attemptsAlone = 1;
      }
    }
    await Promise.all(
      rows.map((row) =>
        retriedOnConflict(
          () => db.insertRows(statementFor(1), [row.values], alongside([row.key])),
          attemptsAlone,
        ).then(([id]) => row.resolve(id as number), row.reject),
      ),
    );
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

const AUTO_INCREMENT_STEP = 'SELECT @@auto_increment_increment AS step';

/**
 * Database.insertRows on `pool`, straight to the driver; failures as
 * storeFailure's. InnoDB reserves the ids of an INSERT whose row count it
 * knows in one step, in every innodb_autoinc_lock_mode, so its rows get
 * consecutive ids, auto_increment_increment apart, from the first (the
 * insertId); that setting is read once (per-session changes are not
 * followed). With `alongside`, one transaction holds all the statements, in
 * one round trip.
 */
export function insertRowsOn(pool: Pool, timeoutMs: number): Database['insertRows'] {
  let idStep: Promise<number> | undefined;
  const autoIncrementStep = () =>
    (idStep ??= queryWithin<{ step: number }[]>(pool, timeoutMs, AUTO_INCREMENT_STEP, []).then(
      ([row]) => Number(row?.step ?? 1),
      (err) => {
        idStep = undefined;
        throw storeFailure(err);
      },
    ));
  const inserted = async (sql: string, values: unknown[], alongside: Statement[]) =>
    alongside.length > 0
      ? ((
          await transactionWithin(pool, timeoutMs, [{ sql, values }, ...alongside])
        )[0] as ResultSetHeader)
      : queryWithin<ResultSetHeader>(pool, timeoutMs, sql, values, {
          prepared: true,
          commitsAt: 0,
        });

  return async (sql, rows, alongside = []) => {
    const step = rows.length > 1 ? await autoIncrementStep() : 1;
    let result: ResultSetHeader;
    try {
      result = await inserted(sql, rows.flat(), alongside);
    } catch (err) {
      throw storeFailure(err);
    }
    return Array.from({ length: rows.length }, (_row, i) => result.insertId + i * step);
  };
}

/**
 * `write`, tried again when the server gave it up for another transaction's
 * locks (a lost deadlock or lock wait, in which it kept nothing), until
 * `attempts` have failed; then that LockConflictError.
 */
export async function retriedOnConflict<T>(write: () => Promise<T>, attempts = 2): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (!(err instanceof LockConflictError) || attempt >= attempts) throw err;
    }
  }
}
