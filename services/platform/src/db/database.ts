import {
  AppError,
  isMysqlUnavailable,
  type Pool,
  queryWithin,
  type ResultSetHeader,
} from '@svc/common';
import type { PoolConnection as CorePoolConnection } from 'mysql2';

/** ER_NO_REFERENCED_ROW and ER_NO_REFERENCED_ROW_2: a foreign key points at no row. */
const MISSING_REFERENCE = new Set([1216, 1452]);

export const STORAGE_UNAVAILABLE = 'storage is unavailable';
export const STORAGE_ERROR = 'storage error';

/**
 * Parameterized SQL on the pool. Every failure becomes a 500 AppError whose
 * text is safe to send; the driver's error stays as its cause, for the log.
 */
export interface Database {
  select<T>(sql: string, values?: unknown[]): Promise<T[]>;
  /**
   * Rows one by one as the server sends them, for lists too long to hold whole.
   * Resolves once the server has started answering, so a failure before any
   * row is a rejection like select's; one later throws from the iteration.
   */
  selectEach<T>(sql: string, values?: unknown[]): Promise<AsyncIterable<T>>;
  /** Returns the new row's id; `missingReference` is the text for a foreign key that finds no row. */
  insert(sql: string, values: unknown[], missingReference?: string): Promise<number>;
  /** Returns the number of rows the statement matched. */
  update(sql: string, values: unknown[]): Promise<number>;
}

export function createDatabase(pool: Pool, queryTimeoutMs = 5000): Database {
  const run = <T>(sql: string, values: unknown[]) =>
    queryWithin<T>(pool, queryTimeoutMs, sql, values);

  async function guarded<T>(work: Promise<T>, missingReference?: string): Promise<T> {
    try {
      return await work;
    } catch (err) {
      throw new AppError(500, describe(err, missingReference), undefined, { cause: err });
    }
  }

  async function selectEach<T>(sql: string, values: unknown[] = []): Promise<AsyncIterable<T>> {
    // The driver's own pool: only its connections stream rows.
    const conn = await guarded(
      new Promise<CorePoolConnection>((resolve, reject) =>
        pool.pool.getConnection((err, connection) => (err ? reject(err) : resolve(connection))),
      ),
    );
    // No query timeout here: once rows flow, a slow client may take its time;
    // the wait for the first answer is bounded instead.
    const query = conn.query({ sql, values });
    const rows = query.stream({ highWaterMark: 256 });
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        query.once('fields', () => resolve());
        rows.once('error', reject);
        timer = setTimeout(() => reject(timedOut()), queryTimeoutMs);
      });
    } catch (err) {
      conn.destroy();
      throw new AppError(500, describe(err), undefined, { cause: err });
    } finally {
      clearTimeout(timer);
    }
    return (async function* () {
      let finished = false;
      try {
        for await (const row of rows) yield row as T;
        finished = true;
      } catch (err) {
        throw new AppError(500, describe(err), undefined, { cause: err });
      } finally {
        // Left early (the client went away) or failed: the query may still be running.
        if (finished) conn.release();
        else conn.destroy();
      }
    })();
  }

  return {
    select: <T>(sql: string, values: unknown[] = []) => guarded(run<T[]>(sql, values)),
    selectEach,
    async insert(sql, values, missingReference) {
      const result = await guarded(run<ResultSetHeader>(sql, values), missingReference);
      return result.insertId;
    },
    async update(sql, values) {
      const result = await guarded(run<ResultSetHeader>(sql, values));
      return result.affectedRows;
    },
  };
}

function timedOut(): Error {
  return Object.assign(new Error('Query inactivity timeout'), {
    code: 'PROTOCOL_SEQUENCE_TIMEOUT',
  });
}

function describe(err: unknown, missingReference?: string): string {
  const errno = (err as { errno?: unknown } | null)?.errno;
  if (missingReference && typeof errno === 'number' && MISSING_REFERENCE.has(errno)) {
    return missingReference;
  }
  return isMysqlUnavailable(err) ? STORAGE_UNAVAILABLE : STORAGE_ERROR;
}
