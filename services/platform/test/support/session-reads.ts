import { createMysqlPool, type RowDataPacket } from '@svc/common';
import type { MysqlSettings } from '@svc/test-kit';
import { type PlatformDatabase, platformDatabase } from '../../src/store/database.js';

/**
 * Rows and index entries `work` reads, run on a pool of one connection: the
 * sum of that session's Handler_read counters, which hold its own reads alone.
 */
export async function readsOf(
  settings: MysqlSettings,
  work: (db: PlatformDatabase) => Promise<unknown>,
): Promise<number> {
  const one = await createMysqlPool({ ...settings, poolSize: 1, multipleStatements: true });
  const reads = async () => {
    const [rows] = await one.query<RowDataPacket[]>(
      "SHOW SESSION STATUS WHERE Variable_name LIKE 'Handler_read%'",
    );
    return rows.reduce((sum: number, row) => sum + Number(row.Value), 0);
  };
  try {
    const before = await reads();
    await work(platformDatabase(one));
    return (await reads()) - before;
  } finally {
    await one.end();
  }
}
