import {
  createDatabase,
  type Database,
  LockConflictError,
  MissingReferenceError,
  type Pool,
  type ResultSetHeader,
  type Statement,
  storeFailure,
} from '@svc/common';
import { type Run, readCommitted } from './read-committed.js';
import { lookupThenStream } from './snapshot-stream.js';

const COMMA = Buffer.from(',');

/**
 * The platform's SQL, on common's Database: every failure is a domain error
 * (StoreUnavailableError, MissingReferenceError, DuplicateEntryError) or, for
 * a wrong statement, the driver's own error.
 */
export interface PlatformDatabase extends ListDatabase {
  /**
   * The reads of the list routes: on a replica when there are any (see
   * replica-reads.ts), otherwise these same reads on the primary.
   */
  lists: ListDatabase;
  /**
   * Returns the new row's id; tried once more after a LockConflictError.
   * With `alongside`, the INSERT and those statements commit together in one
   * transaction, or none does; they name the new
   * rows' ids as LAST_INSERT_ID() + i * @@auto_increment_increment (row i from 0).
   */
  insert(sql: string, values: unknown[], alongside?: Statement[]): Promise<number>;
  /** One INSERT of every row (`sql` holds a group of placeholders per row); returns their ids in order. */
  insertRows(sql: string, rows: unknown[][], alongside?: Statement[]): Promise<number[]>;
  /** Returns the number of rows the statement matched. */
  update(sql: string, values: unknown[]): Promise<number>;
  /**
   * The statements as one transaction (see outbox.ts statusChange); true when
   * the first, a SELECT that locks the changed row, found it.
   */
  change(statements: Statement[]): Promise<boolean>;
  /**
   * A READ COMMITTED transaction on a connection of its own, for steps that
   * depend on earlier answers (`run` sends one query, bounded by the query
   * timeout): committed when `work` resolves, rolled back when it throws.
   * Each read sees what had committed when it ran, and takes no gap locks.
   */
  readCommitted<T>(work: (run: Run) => Promise<T>): Promise<T>;
  /** The pool's connections: how many statements can run at once. */
  connections: number;
}

/**
 * The reads of the list routes on replicas (replica-reads.ts). A `snapshot`
 * is a read that takes a connection of `db` for itself (snapshot-stream.ts);
 * `connection`, like the writes, is the primary's.
 */
export interface ListReads extends Database {
  snapshot<R>(read: (db: Database) => Promise<R>): Promise<R>;
}

/** Reads, on whichever server a Database reaches. */
interface ListDatabase {
  select<T>(sql: string, values?: unknown[]): Promise<T[]>;
  /**
   * Rows of one binary column, each the JSON text of a row as the SQL wrote
   * it, joined by commas: the inside of a JSON array, never decoded here.
   */
  selectJson(sql: string, values?: unknown[]): Promise<Buffer>;
  /**
   * `lookup`'s rows, then `list`'s rows (arrays of column values) in batches
   * as the server sends them, both read in one snapshot (see snapshot-stream.ts).
   */
  lookupThenStream<L, R>(
    lookup: Statement,
    list: Statement,
  ): Promise<{ lookup: L[]; batches: AsyncIterable<R[]> }>;
}

/** `snapshot`: where a read that holds a connection of its own runs (see ListReads). */
function readsOn(
  db: Database,
  queryTimeoutMs: number,
  snapshot: ListReads['snapshot'] = (read) => read(db),
): ListDatabase {
  return {
    select: (sql, values = []) => db.select(sql, values),
    async selectJson(sql, values = []) {
      const rows = await db.select<[Buffer]>(sql, values, { rowsAsArray: true });
      const parts: Buffer[] = [];
      for (const [json] of rows) {
        if (parts.length > 0) parts.push(COMMA);
        parts.push(json);
      }
      return Buffer.concat(parts);
    },
    lookupThenStream: (lookup, list) =>
      snapshot((on) => lookupThenStream(on, queryTimeoutMs, lookup, list)),
  };
}

/** `listReads`: where the list routes read (replicaReads' reads); the primary when absent. */
export function platformDatabase(
  pool: Pool,
  queryTimeoutMs = 5000,
  listReads?: ListReads,
): PlatformDatabase {
  const db: Database = createDatabase(pool, queryTimeoutMs);
  const reads = readsOn(db, queryTimeoutMs);

  let idStep: Promise<number> | undefined;
  /**
   * InnoDB reserves the ids of an INSERT whose row count it knows in one step,
   * in every innodb_autoinc_lock_mode, so the rows of one statement get
   * consecutive ids, auto_increment_increment apart, from the first (the
   * insertId). That setting is read once (per-session changes are not followed).
   */
  const autoIncrementStep = () => {
    idStep ??= db.select<{ step: number }>('SELECT @@auto_increment_increment AS step').then(
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
        ? ((await db.transaction([{ sql, values }, ...alongside]))[0] as ResultSetHeader)
        : await db.write(sql, values);
    return Array.from({ length: count }, (_row, i) => result.insertId + i * step);
  }

  return {
    ...reads,
    lists: listReads ? readsOn(listReads, queryTimeoutMs, listReads.snapshot) : reads,
    async insert(sql, values, alongside = []) {
      const [id] = await retriedOnConflict(() => insertWith(sql, values, 1, alongside));
      return id as number;
    },
    async insertRows(sql, rows, alongside = []) {
      const step = rows.length > 1 ? await autoIncrementStep() : 1;
      return insertWith(sql, rows.flat(), rows.length, alongside, step);
    },
    async update(sql, values) {
      return (await db.write(sql, values)).affectedRows;
    },
    async change(statements) {
      const [locked] = (await db.transaction(statements)) as unknown[][];
      return (locked?.length ?? 0) > 0;
    },
    readCommitted: (work) => readCommitted(db, queryTimeoutMs, work),
    connections: db.connections,
  };
}

/**
 * A write's failure with its missing reference named (`service 42`): the
 * driver tells only that a foreign key found no row, the repository which.
 */
export function naming(err: unknown, what: string, id: number): unknown {
  return err instanceof MissingReferenceError
    ? new MissingReferenceError(what, id, { cause: err.cause })
    : err;
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
