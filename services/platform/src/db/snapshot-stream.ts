import type { Readable } from 'node:stream';
import {
  type Database,
  destroyConnection,
  queryTimedOut,
  type Statement,
  statementOn,
  storeFailure,
} from '@svc/common';

/**
 * `lookup`'s rows, then `list`'s rows in batches as the server sends them,
 * both read in one read-only snapshot on one connection, so the list sees the
 * data the lookup saw. The list's rows are arrays of column values. Resolves
 * once the list has started answering, so a failure before any row is a
 * rejection; one later throws from the iteration. Leaving the iteration early
 * (the client went away) ends the query and drops its connection.
 */
export async function lookupThenStream<L, R>(
  db: Database,
  timeoutMs: number,
  lookup: Statement,
  list: Statement,
): Promise<{ lookup: L[]; batches: AsyncIterable<R[]> }> {
  const conn = await db.connection();
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
