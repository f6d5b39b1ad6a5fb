import type { Readable } from 'node:stream';
import {
  AppError,
  createDatabase as createSqlDatabase,
  DuplicateEntryError,
  destroyConnection,
  storeFailure as domainFailure,
  MissingReferenceError,
  type Pool,
  queryTimedOut,
  type ResultSetHeader,
  type Database as SqlDatabase,
  type Statement,
  StoreUnavailableError,
} from '@svc/common';
import { STORAGE_ERROR } from '../http/messages.js';

const COMMA = Buffer.from(',');

/**
 * Parameterized SQL on the pool. A server that cannot be reached is a
 * StoreUnavailableError; any other failure a code-500 AppError whose text is
 * safe to send. The driver's error stays as the cause, for the log.
 */
export interface Database {
  select<T>(sql: string, values?: unknown[]): Promise<T[]>;
  /**
   * Rows of one binary column, each the JSON text of a row as the SQL wrote
   * it, joined by commas: the inside of a JSON array, never decoded here.
   */
  selectJson(sql: string, values?: unknown[]): Promise<Buffer>;
  /**
   * `lookup`'s rows, then `list`'s rows in batches as the server sends them,
   * both read in one read-only snapshot, so the list sees the data the lookup
   * saw. The list's rows are arrays of column values. Resolves once the list has
   * started answering, so a failure before any row is a rejection like select's;
   * one later throws from the iteration.
   */
  lookupThenStream<L, R>(
    lookup: Statement,
    list: Statement,
  ): Promise<{ lookup: L[]; batches: AsyncIterable<R[]> }>;
  /**
   * Returns the new row's id; `missingReference` is the text for a foreign key
   * that finds no row. With `alongside`, the INSERT and that statement commit
   * together in one transaction, or neither does; it names the new rows' ids
   * as LAST_INSERT_ID() + i * @@auto_increment_increment (row i from 0).
   */
  insert(
    sql: string,
    values: unknown[],
    missingReference?: string,
    alongside?: Statement,
  ): Promise<number>;
  /** One INSERT of every row (`sql` holds a group of placeholders per row); returns their ids in order. */
  insertRows(
    sql: string,
    rows: unknown[][],
    missingReference?: string,
    alongside?: Statement,
  ): Promise<number[]>;
  /** The pool's connections: how many statements can run at once. */
  connections: number;
  /** Returns the number of rows the statement matched. */
  update(sql: string, values: unknown[]): Promise<number>;
}

export function createDatabase(pool: Pool, queryTimeoutMs = 5000): Database {
  const sql: SqlDatabase = createSqlDatabase(pool, queryTimeoutMs);

  async function guarded<T>(work: Promise<T>, missingReference?: string): Promise<T> {
    try {
      return await work;
    } catch (err) {
      throw storeFailure(err, missingReference);
    }
  }

  let idStep: Promise<number> | undefined;
  /**
   * InnoDB reserves the ids of an INSERT whose row count it knows in one step,
   * in every innodb_autoinc_lock_mode, so the rows of one statement get
   * consecutive ids, auto_increment_increment apart, from the first (the
   * insertId). That setting is read once (per-session changes are not followed).
   */
  const autoIncrementStep = () => {
    idStep ??= guarded(
      sql.select<{ step: number }>('SELECT @@auto_increment_increment AS step'),
    ).then(
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
   * autoIncrementStep). With `alongside`, one transaction holds both
   * statements, sent in one round trip.
   */
  function insertWith(
    statement: string,
    values: unknown[],
    count: number,
    missingReference: string | undefined,
    alongside: Statement | undefined,
    step = 1,
  ): Promise<number[]> {
    const idsOf = (result: ResultSetHeader) =>
      Array.from({ length: count }, (_row, i) => result.insertId + i * step);
    const written = alongside
      ? sql
          .transaction([{ sql: statement, values }, alongside])
          .then(([inserted]) => idsOf(inserted as ResultSetHeader))
      : sql.write(statement, values).then(idsOf);
    return guarded(written, missingReference);
  }

  async function lookupThenStream<L, R>(lookup: Statement, list: Statement) {
    // The driver's own pool: only its connections stream rows.
    const conn = await guarded(sql.connection());
    const statement = <T>(text: string, values: unknown[] = []) =>
      new Promise<T>((resolve, reject) =>
        conn.query({ sql: text, values, timeout: queryTimeoutMs }, (err, rows) =>
          err ? reject(err) : resolve(rows as T),
        ),
      );
    let found: L[];
    let rows: Readable;
    let timer: NodeJS.Timeout | undefined;
    try {
      await statement('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
      found = await statement<L[]>(lookup.sql, lookup.values);
      // No query timeout on the list: once rows flow, a slow client may take
      // its time; the wait for the first answer is bounded instead.
      const query = conn.query({ sql: list.sql, values: list.values, rowsAsArray: true });
      rows = query.stream({ highWaterMark: 256 });
      await new Promise<void>((resolve, reject) => {
        query.once('fields', () => resolve());
        rows.once('error', reject);
        timer = setTimeout(() => reject(queryTimedOut()), queryTimeoutMs);
      });
    } catch (err) {
      destroyConnection(conn);
      throw storeFailure(err);
    } finally {
      clearTimeout(timer);
    }
    const batches = (async function* () {
      let finished = false;
      try {
        yield* batchesOf<R>(rows);
        finished = true;
      } catch (err) {
        throw storeFailure(err);
      } finally {
        // Left early (the client went away) or failed: the list may still be running.
        if (finished)
          conn.query('COMMIT', (err) => (err ? destroyConnection(conn) : conn.release()));
        else destroyConnection(conn);
      }
    })();
    return { lookup: found, batches };
  }

  return {
    select: <T>(text: string, values: unknown[] = []) => guarded(sql.select<T>(text, values)),
    async selectJson(text, values = []) {
      const rows = await guarded(sql.select<[Buffer]>(text, values, { rowsAsArray: true }));
      const parts: Buffer[] = [];
      for (const [json] of rows) {
        if (parts.length > 0) parts.push(COMMA);
        parts.push(json);
      }
      return Buffer.concat(parts);
    },
    lookupThenStream,
    async insert(text, values, missingReference, alongside) {
      const [id] = await insertWith(text, values, 1, missingReference, alongside);
      return id as number;
    },
    async insertRows(text, rows, missingReference, alongside) {
      const step = rows.length > 1 ? await autoIncrementStep() : 1;
      return insertWith(text, rows.flat(), rows.length, missingReference, alongside, step);
    },
    connections: sql.connections,
    async update(text, values) {
      const result = await guarded(sql.write(text, values));
      return result.affectedRows;
    },
  };
}

/** Whatever rows the stream holds at a time, so a long list costs no promise per row. */
async function* batchesOf<R>(rows: Readable): AsyncGenerator<R[]> {
  for (;;) {
    const batch: R[] = [];
    for (let row = rows.read(); row !== null; row = rows.read()) batch.push(row as R);
    if (batch.length > 0) {
      yield batch;
      continue;
    }
    if (rows.errored) throw rows.errored;
    if (rows.readableEnded) return;
    await new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        rows.off('readable', settle);
        rows.off('end', settle);
        rows.off('error', settle);
        if (err) reject(err);
        else resolve();
      };
      rows.on('readable', settle);
      rows.on('end', settle);
      rows.on('error', settle);
    });
  }
}

function storeFailure(err: unknown, missingReference?: string): Error {
  const failure = domainFailure(err);
  if (failure instanceof MissingReferenceError && missingReference) {
    return new AppError(500, missingReference, { cause: err });
  }
  if (failure instanceof StoreUnavailableError || failure instanceof DuplicateEntryError) {
    return failure;
  }
  return new AppError(500, STORAGE_ERROR, { cause: err });
}
