import type { Pool, ResultSetHeader } from 'mysql2/promise';
import { LockConflictError } from './errors.js';
import { poolSize } from './mysql-driver.js';
import { storeFailure } from './mysql-failures.js';
import {
  type HeldConnection,
  holdConnection,
  type LookupThenList,
  type Run,
  readCommitted,
} from './mysql-held.js';
import { queryWithin, type Statement, transactionWithin } from './mysql-statement.js';

/** What commits with the rows of one INSERT, in its transaction: statements before it and after it. */
export interface Around {
  before: Statement[];
  after: Statement[];
}

export const NOTHING_AROUND: Around = { before: [], after: [] };

/**
 * Parameterized SQL on a pool, each statement bounded by the query timeout.
 * Every failure is one of storeFailure's.
 */
export interface Database {
  /** The rows, as objects, or with `rowsAsArray` as arrays of column values. */
  select<T>(sql: string, values?: unknown[], options?: { rowsAsArray?: boolean }): Promise<T[]>;
  /** One write, sent as a server-side prepared statement (parsed once per connection). */
  write(sql: string, values: unknown[]): Promise<ResultSetHeader>;
  /** `write`, answering only the number of rows it wrote (or matched, for an UPDATE). */
  update(sql: string, values: unknown[]): Promise<number>;
  /** The statements as one transaction in one round trip; each one's result (see transactionWithin). */
  transaction(statements: Statement[]): Promise<unknown[]>;
  /**
   * Returns the new row's id. With `around`, the INSERT and those statements
   * commit together in one transaction, or none does; statements after it
   * name the new row's id as LAST_INSERT_ID(). It is tried first with
   * `around(false)`, which waits for no lock, and once more with
   * `around(true)`, which may (bounded by the server's lock wait), after the
   * first met another transaction's lock (a LockConflictError).
   */
  insert(sql: string, values: unknown[], around?: (waits: boolean) => Around): Promise<number>;
  /**
   * One INSERT of every row (`sql` holds a group of placeholders per row),
   * with what commits `around` it; returns their ids in order. Statements
   * after it name row i's id (from 0) as
   * LAST_INSERT_ID() + i * @@auto_increment_increment (insertRowsOn).
   */
  insertRows(sql: string, rows: unknown[][], around?: Around): Promise<number[]>;
  /**
   * A READ COMMITTED transaction on a connection of its own, for steps that
   * depend on earlier answers (see mysql-held.ts readCommitted).
   */
  readCommitted<T>(work: (run: Run) => Promise<T>): Promise<T>;
  /**
   * `lookup`'s rows, then `list`'s rows in batches as the server sends them,
   * both read in one snapshot on a connection of their own (see HeldConnection).
   */
  lookupThenStream<L, R>(lookup: Statement, list: Statement): Promise<LookupThenList<L, R>>;
  /** A connection of its own, for statements that must share one (see HeldConnection). */
  hold(): Promise<HeldConnection>;
  /** The pool's connections: how many statements can run at once. */
  connections: number;
}

async function mapped<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw storeFailure(err);
  }
}

export function createDatabase(pool: Pool, queryTimeoutMs = 5000): Database {
  const select: Database['select'] = <T>(sql: string, values: unknown[] = [], options = {}) =>
    mapped(queryWithin<T[]>(pool, queryTimeoutMs, sql, values, options));
  const write: Database['write'] = (sql, values) =>
    mapped(
      queryWithin<ResultSetHeader>(pool, queryTimeoutMs, sql, values, {
        prepared: true,
        commitsAt: 0,
      }),
    );
  const transaction: Database['transaction'] = (statements) =>
    mapped(transactionWithin(pool, queryTimeoutMs, statements));

  const insertRows = insertRowsOn(pool, queryTimeoutMs);

  return {
    select,
    write,
    update: async (sql, values) => (await write(sql, values)).affectedRows,
    transaction,
    async insert(sql, values, around = () => NOTHING_AROUND) {
      try {
        return (await insertRows(sql, [values], around(false)))[0] as number;
      } catch (err) {
        if (!(err instanceof LockConflictError)) throw err;
        return (await insertRows(sql, [values], around(true)))[0] as number;
      }
    },
    insertRows,
    readCommitted: (work) => readCommitted(pool, queryTimeoutMs, work),
    async lookupThenStream(lookup, list) {
      return (await holdConnection(pool, queryTimeoutMs)).lookupThenStream(lookup, list);
    },
    hold: () => holdConnection(pool, queryTimeoutMs),
    connections: poolSize(pool),
  };
}

const AUTO_INCREMENT_STEP = 'SELECT @@auto_increment_increment AS step';

/**
 * Database.insertRows on `pool`, straight to the driver; failures as
 * storeFailure's. InnoDB reserves the ids of an INSERT whose row count it
 * knows in one step, in every innodb_autoinc_lock_mode, so its rows get
 * consecutive ids, auto_increment_increment apart, from the first (the
 * insertId); that setting is read once (per-session changes are not
 * followed). With statements `around` it, one transaction holds them all,
 * in one round trip.
 */
function insertRowsOn(pool: Pool, timeoutMs: number): Database['insertRows'] {
  let idStep: Promise<number> | undefined;
  const autoIncrementStep = () =>
    (idStep ??= queryWithin<{ step: number }[]>(pool, timeoutMs, AUTO_INCREMENT_STEP, []).then(
      ([row]) => Number(row?.step ?? 1),
      (err) => {
        idStep = undefined;
        throw storeFailure(err);
      },
    ));
  const inserted = async (sql: string, values: unknown[], { before, after }: Around) =>
    before.length + after.length > 0
      ? ((await transactionWithin(pool, timeoutMs, [...before, { sql, values }, ...after]))[
          before.length
        ] as ResultSetHeader)
      : queryWithin<ResultSetHeader>(pool, timeoutMs, sql, values, {
          prepared: true,
          commitsAt: 0,
        });

  return async (sql, rows, around = NOTHING_AROUND) => {
    const step = rows.length > 1 ? await autoIncrementStep() : 1;
    let result: ResultSetHeader;
    try {
      result = await inserted(sql, rows.flat(), around);
    } catch (err) {
      throw storeFailure(err);
    }
    return Array.from({ length: rows.length }, (_row, i) => result.insertId + i * step);
  };
}
