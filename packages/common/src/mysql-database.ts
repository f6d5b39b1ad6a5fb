import type { Pool, ResultSetHeader } from 'mysql2/promise';
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

  return {
    select,
    write,
    update: async (sql, values) => (await write(sql, values)).affectedRows,
    transaction,
    readCommitted: (work) => readCommitted(pool, queryTimeoutMs, work),
    async lookupThenStream(lookup, list) {
      return (await holdConnection(pool, queryTimeoutMs)).lookupThenStream(lookup, list);
    },
    hold: () => holdConnection(pool, queryTimeoutMs),
    connections: poolSize(pool),
  };
}
