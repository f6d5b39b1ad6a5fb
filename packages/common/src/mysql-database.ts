import type { Pool, ResultSetHeader } from 'mysql2/promise';
import { LockConflictError } from './errors.js';
import { poolSize, queryWithin, type Statement, transactionWithin } from './mysql-driver.js';
import { storeFailure } from './mysql-failures.js';
import {
  type HeldConnection,
  holdConnection,
  type LookupThenList,
  type Run,
  readCommitted,
} from './mysql-held.js';

/**
 * Parameterized SQL on a pool, each statement bounded by the query timeout.
 * Every failure is one of storeFailure's.
 */
export interface Database {
  /** The rows, as objects, or with `rowsAsArray` as arrays of column values. */
  select<T>(sql: string, values?: unknown[], options?: { rowsAsArray?: boolean }): Promise<T[]>;
  /** One write, sent as a server-side prepared statement (parsed once per connection). */
  write(sql: string, values: unknown[]): Promise<ResultSetHeader>;
  /** The statements as one transaction in one round trip; each one's result (see transactionWithin). */
  transaction(statements: Statement[]): Promise<unknown[]>;
  /**
   * Returns the new row's id; tried once more after a LockConflictError.
   * With `alongside`, the INSERT and those statements commit together in one
   * transaction, or none does; they name the new rows' ids as
   * LAST_INSERT_ID() + i * @@auto_increment_increment (row i from 0).
   */
  insert(sql: string, values: unknown[], alongside?: Statement[]): Promise<number>;
  /** One INSERT of every row (`sql` holds a group of placeholders per row); returns their ids in order. */
  insertRows(sql: string, rows: unknown[][], alongside?: Statement[]): Promise<number[]>;
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
    mapped(queryWithin<ResultSetHeader>(pool, queryTimeoutMs, sql, values, { prepared: true }));
  const transaction: Database['transaction'] = (statements) =>
    mapped(transactionWithin(pool, queryTimeoutMs, statements));

  let idStep: Promise<number> | undefined;
  /**
   * InnoDB reserves the ids of an INSERT whose row count it knows in one step,
   * in every innodb_autoinc_lock_mode, so the rows of one statement get
   * consecutive ids, auto_increment_increment apart, from the first (the
   * insertId). That setting is read once (per-session changes are not followed).
   */
  const autoIncrementStep = () => {
    idStep ??= select<{ step: number }>('SELECT @@auto_increment_increment AS step').then(
      ([row]) => Number(row?.step ?? 1),
      (err) => {
        idStep = undefined;
        throw err;
      },
    );
    return idStep;
  };

  /**
   * The ids of `count` rows one INSERT wrote: consecutive, `step` apart (see
   * autoIncrementStep). With `alongside`, one transaction holds all the
   * statements, sent in one round trip.
   */
  async function insertWith(
    sql: string,
    values: unknown[],
    count: number,
    alongside: Statement[],
    step = 1,
  ): Promise<number[]> {
    const result =
      alongside.length > 0
        ? ((await transaction([{ sql, values }, ...alongside]))[0] as ResultSetHeader)
        : await write(sql, values);
    return Array.from({ length: count }, (_row, i) => result.insertId + i * step);
  }

  return {
    select,
    write,
    transaction,
    async insert(sql, values, alongside = []) {
      const [id] = await retriedOnConflict(() => insertWith(sql, values, 1, alongside));
      return id as number;
    },
    async insertRows(sql, rows, alongside = []) {
      const step = rows.length > 1 ? await autoIncrementStep() : 1;
      return insertWith(sql, rows.flat(), rows.length, alongside, step);
    },
    readCommitted: (work) => readCommitted(pool, queryTimeoutMs, work),
    async lookupThenStream(lookup, list) {
      return (await holdConnection(pool, queryTimeoutMs)).lookupThenStream(lookup, list);
    },
    hold: () => holdConnection(pool, queryTimeoutMs),
    connections: poolSize(pool),
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
