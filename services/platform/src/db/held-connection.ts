import type { Database } from '@svc/common';

/** A connection of a pool that its taker holds until it releases or destroys it. */
export type HeldConnection = Awaited<ReturnType<Database['connection']>>;

/**
 * One statement on a held connection, bounded by `timeoutMs`. The driver's
 * error is passed on as it is; the caller destroys the connection then.
 */
export function statementOn<T>(
  conn: HeldConnection,
  timeoutMs: number,
  sql: string,
  values: unknown[] = [],
  rowsAsArray = false,
): Promise<T> {
  return new Promise((resolve, reject) =>
    conn.query({ sql, values, timeout: timeoutMs, rowsAsArray }, (err, rows) =>
      err ? reject(err) : resolve(rows as T),
    ),
  );
}
