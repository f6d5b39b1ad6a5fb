import {
  createDatabase,
  type Database,
  MissingReferenceError,
  type Pool,
  type Statement,
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
   * replicas/replica-reads.ts), otherwise these same reads on the primary.
   */
  lists: ListDatabase;
  /** Common's Database.insert: one row, with what commits alongside it. */
  insert: Database['insert'];
  /** Common's Database.insertRows: one INSERT of every row, shared by sharedInserts. */
  insertRows: Database['insertRows'];
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
 * The reads of the list routes on replicas (replicas/replica-reads.ts). A `snapshot`
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

  return {
    ...reads,
    lists: listReads ? readsOn(listReads, queryTimeoutMs, listReads.snapshot) : reads,
    insert: db.insert,
    insertRows: db.insertRows,
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
