import type { Readable } from 'node:stream';
import type { Pool } from 'mysql2/promise';
import { connectionOf, destroyConnection, type PoolConnection } from './mysql-driver.js';
import { queryTimedOut, storeFailure } from './mysql-failures.js';
import { type Statement, statementOn } from './mysql-statement.js';

/** One query of a transaction (see readCommitted); its rows, or its result header. */
export type Run = <R>(sql: string, values?: unknown[]) => Promise<R>;

/** `lookup`'s rows, and `list`'s rows (arrays of column values) in batches as the server sends them. */
export interface LookupThenList<L, R> {
  lookup: L[];
  batches: AsyncIterable<R[]>;
}

/**
 * A connection of the pool held for several statements. Every failure is one
 * of storeFailure's. The holder releases it, or drops it when it leaves it in
 * doubt; a stream (lookupThenStream) takes it over and gives it back itself.
 */
export interface HeldConnection {
  /** One statement, bounded by `timeoutMs` (the query timeout unless given). */
  select<T>(
    sql: string,
    values?: unknown[],
    options?: { rowsAsArray?: boolean; timeoutMs?: number },
  ): Promise<T[]>;
  /**
   * `lookup`'s rows, then `list`'s rows in batches as the server sends them,
   * both read in one read-only snapshot on this connection, so the list sees
   * the data the lookup saw. Resolves once the list has started answering,
   * so a failure before any row is a rejection; one later throws from the
   * iteration. Leaving the iteration early (the client went away) ends the
   * query and drops the connection.
   */
  lookupThenStream<L, R>(lookup: Statement, list: Statement): Promise<LookupThenList<L, R>>;
  release(): void;
  /** Closes a connection the server may still be working for (see destroyConnection). */
  drop(): void;
}

async function mapped<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw storeFailure(err);
  }
}

export async function holdConnection(pool: Pool, timeoutMs: number): Promise<HeldConnection> {
  const conn = await mapped(connectionOf(pool));
  return {
    select: (sql, values = [], options = {}) =>
      mapped(statementOn(conn, options.timeoutMs ?? timeoutMs, sql, values, options)),
    lookupThenStream: (lookup, list) => lookupThenStream(conn, timeoutMs, lookup, list),
    release: () => conn.release(),
    drop: () => destroyConnection(conn),
  };
}

/**
 * A READ COMMITTED transaction on a connection of its own, for steps that
 * depend on earlier answers (`run` sends one query, bounded by the query
 * timeout): committed when `work` resolves, rolled back when it throws. Each
 * read sees what had committed when it ran, and takes no gap locks.
 */
export async function readCommitted<T>(
  pool: Pool,
  timeoutMs: number,
  work: (run: Run) => Promise<T>,
): Promise<T> {
  const conn = await mapped(connectionOf(pool));
  const run: Run = (sql, values = []) => mapped(statementOn(conn, timeoutMs, sql, values));
  try {
    await run('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
    await run('START TRANSACTION');
    const result = await work(run);
    await mapped(statementOn(conn, timeoutMs, 'COMMIT', [], { commitsAt: 0 }));
    conn.release();
    return result;
  } catch (err) {
    // A connection whose transaction is in doubt is not given to another query.
    destroyConnection(conn);
    throw err;
  }
}

async function lookupThenStream<L, R>(
  conn: PoolConnection,
  timeoutMs: number,
  lookup: Statement,
  list: Statement,
): Promise<LookupThenList<L, R>> {
  const statement = <T>(sql: string, values: unknown[] = []) =>
    statementOn<T>(conn, timeoutMs, sql, values);
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
      timer = setTimeout(() => reject(queryTimedOut()), timeoutMs);
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
      if (finished) conn.query('COMMIT', (err) => (err ? destroyConnection(conn) : conn.release()));
      else destroyConnection(conn);
    }
  })();
  return { lookup: found, batches };
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
