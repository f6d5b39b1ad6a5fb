import type { PlatformDatabase } from './database.js';

/** A statement of a readCommitted transaction. */
type Run = Parameters<Parameters<PlatformDatabase['readCommitted']>[0]>[0];

/** Rows one deleting statement takes at most. */
export const BATCH_ROWS = 1000;

/**
 * `statement` (one READ COMMITTED transaction, which takes no gap locks, that
 * answers the rows it deleted) again and again until one deletes fewer than
 * BATCH_ROWS; how many in all. Writers go on at the young end meanwhile.
 */
export async function inBatches(
  db: PlatformDatabase,
  statement: (run: Run) => Promise<number>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await db.readCommitted(statement);
    total += rows;
    if (rows < BATCH_ROWS) return total;
  }
}

/** What a DELETE answers. */
export type Deleted = { affectedRows: number };
