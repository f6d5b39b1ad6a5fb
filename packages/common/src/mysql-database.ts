import type { Pool, ResultSetHeader } from 'mysql2/promise';
import {
  DuplicateEntryError,
  LockConflictError,
  MissingReferenceError,
  StoreUnavailableError,
} from './errors.js';
import { connectionOf, type PoolConnection, poolSize } from './mysql-driver.js';
import {
  isMysqlUnavailable,
  queryWithin,
  type Statement,
  transactionWithin,
} from './mysql-statements.js';

/** ER_DUP_ENTRY */
const DUPLICATE_ENTRY = 1062;
/** ER_NO_REFERENCED_ROW and ER_NO_REFERENCED_ROW_2: a foreign key finds no row. */
const MISSING_REFERENCE = new Set([1216, 1452]);

/**
 * ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT (also MariaDB's answer to a NOWAIT
 * lock that is taken) and MySQL's ER_LOCK_NOWAIT.
 */
const LOCK_CONFLICT = new Set([1213, 1205, 3572]);

/**
 * A driver failure as the domain names it: a server out of reach (or too slow)
 * is a StoreUnavailableError, a unique key taken a DuplicateEntryError, a
 * foreign key that finds no row a MissingReferenceError, a lost deadlock or
 * lock wait a LockConflictError. Anything else is a
 * bug, returned as it is for the service to answer as one.
 */
export function storeFailure(err: unknown): unknown {
  if (isMysqlUnavailable(err)) return new StoreUnavailableError('mysql', err);
  const errno = (err as { errno?: unknown } | null)?.errno;
  if (errno === DUPLICATE_ENTRY) return new DuplicateEntryError({ cause: err });
  if (typeof errno === 'number' && LOCK_CONFLICT.has(errno)) {
    return new LockConflictError({ cause: err });
  }
  if (typeof errno === 'number' && MISSING_REFERENCE.has(errno)) {
    return new MissingReferenceError(undefined, undefined, { cause: err });
  }
  return err;
}

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
   * A connection of its own, for a read that streams its rows; the caller
   * releases it, or destroys it (destroyConnection) when it leaves a read unfinished.
   */
  connection(): Promise<PoolConnection>;
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
  return {
    select: <T>(sql: string, values: unknown[] = [], options = {}) =>
      mapped(queryWithin<T[]>(pool, queryTimeoutMs, sql, values, options)),
    write: (sql, values) =>
      mapped(queryWithin<ResultSetHeader>(pool, queryTimeoutMs, sql, values, { prepared: true })),
    transaction: (statements) => mapped(transactionWithin(pool, queryTimeoutMs, statements)),
    connection: () => mapped(connectionOf(pool)),
    connections: poolSize(pool),
  };
}
