import { type Database, destroyConnection, statementOn, storeFailure } from '@svc/common';

/** One query of a transaction (see readCommitted); its rows, or its result header. */
export type Run = <R>(sql: string, values?: unknown[]) => Promise<R>;

/**
 * A READ COMMITTED transaction on a connection of its own (PlatformDatabase's
 * readCommitted): committed when `work` resolves, rolled back when it throws.
 */
export async function readCommitted<T>(
  db: Database,
  queryTimeoutMs: number,
  work: (run: Run) => Promise<T>,
): Promise<T> {
  const conn = await db.connection();
  const run: Run = async (sql, values = []) => {
    try {
      return await statementOn(conn, queryTimeoutMs, sql, values);
    } catch (err) {
      throw storeFailure(err);
    }
  };
  try {
    await run('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
    await run('START TRANSACTION');
    const result = await work(run);
    await run('COMMIT');
    conn.release();
    return result;
  } catch (err) {
    // A connection whose transaction is in doubt is not given to another query.
    destroyConnection(conn);
    throw err;
  }
}
