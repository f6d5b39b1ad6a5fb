import {
  createDatabase,
  type Database,
  LockConflictError,
  type LookupThenList,
  MissingReferenceError,
  type Pool,
  type Statement,
} from '@svc/common';
import { type Around, insertRowsOn, NOTHING_AROUND } from './new-rows.js';

const COMMA = Buffer.from(',');

/**
 * The platform's SQL, on common's Database: every failure is a domain error
 * (StoreUnavailableError, MissingReferenceError, DuplicateEntryError) or, for
 * a wrong statement, the driver's own error.
 */
export interface PlatformDatabase extends ListDatabase {
  /**
   * The reads of the list routes: on a replica when there are any (see
   * store/replicas/replica-reads.ts), otherwise these same reads on the primary.
   */
  lists: ListDatabase;
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
   * LAST_INSERT_ID() + i * @@auto_increment_increment.
   */
  insertRows(sql: string, rows: unknown[][], around?: Around): Promise<number[]>;
  /** Common's Database.update: the number of rows the statement wrote or matched. */
  update: Database['update'];
  /**
   * The statements as one transaction (see outbox.ts changeEvent); true when
   * the first, a SELECT that locks the changed row, found it, or the second,
   * the UPDATE, changed it (a row committed between the two).
   */
  change(statements: Statement[]): Promise<boolean>;
  /** Common's Database.readCommitted: a transaction whose steps depend on earlier answers. */
  readCommitted: Database['readCommitted'];
  /** The pool's connections: how many statements can run at once. */
  connections: number;
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
   * as the server sends them, both read in one snapshot (common's HeldConnection).
   */
  lookupThenStream<L, R>(lookup: Statement, list: Statement): Promise<LookupThenList<L, R>>;
}

function readsOn(db: Database): ListDatabase {
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
    lookupThenStream: (lookup, list) => db.lookupThenStream(lookup, list),
  };
}

/**
 * `listReads`: where the list routes read (store/replicas/replica-reads.ts, whose
 * writes are the primary's); the primary when absent.
 */
export function platformDatabase(
  pool: Pool,
  queryTimeoutMs = 5000,
  listReads?: Database,
): PlatformDatabase {
  const db: Database = createDatabase(pool, queryTimeoutMs);
  const reads = readsOn(db);
  const insertRows = insertRowsOn(db);

  return {
    ...reads,
    lists: listReads ? readsOn(listReads) : reads,
    async insert(sql, values, around = () => NOTHING_AROUND) {
      try {
        return (await insertRows(sql, [values], around(false)))[0] as number;
      } catch (err) {
        if (!(err instanceof LockConflictError)) throw err;
        return (await insertRows(sql, [values], around(true)))[0] as number;
      }
    },
    insertRows,
    update: db.update,
    async change(statements) {
      const [locked, updated] = (await db.transaction(statements)) as [
        unknown[],
        { affectedRows: number },
      ];
      return locked.length > 0 || updated.affectedRows > 0;
    },
    readCommitted: db.readCommitted,
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
