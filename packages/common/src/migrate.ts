import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import type { Logger } from 'pino';
import { createMysqlPool, type MysqlSettings } from './mysql-settings.js';

const MIGRATION_FILE = /^(\d+)_[\w-]+\.sql$/;
const LOCK_TIMEOUT_S = 60;

/** Splits a migration file into statements; each ends with `;` at the end of a line. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((part) =>
      part
        .split('\n')
        .filter((line) => !line.trim().startsWith('--'))
        .join('\n')
        .trim(),
    )
    .filter((statement) => statement.length > 0);
}

/**
 * Applies the versioned SQL files of `dir` that the database has not seen, in
 * order, and records each in schema_migrations. A named lock makes concurrent
 * starts wait for each other instead of applying a file twice.
 */
export async function migrate(pool: Pool, dir: string, logger?: Logger): Promise<string[]> {
  const files = (await readdir(dir)).filter((file) => MIGRATION_FILE.test(file)).sort();
  const conn = await pool.getConnection();
  try {
    const [[lock]] = await conn.query<RowDataPacket[]>(
      "SELECT GET_LOCK(CONCAT('migrate:', DATABASE()), ?) AS acquired",
      [LOCK_TIMEOUT_S],
    );
    if (lock?.acquired !== 1) throw new Error(`no migration lock within ${LOCK_TIMEOUT_S}s`);
    try {
      await conn.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version VARCHAR(255) NOT NULL PRIMARY KEY,
           applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
         ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
      );
      const [rows] = await conn.query<RowDataPacket[]>('SELECT version FROM schema_migrations');
      const applied = new Set(rows.map((row) => row.version as string));
      const pending = files.filter((file) => !applied.has(file));
      for (const file of pending) {
        for (const statement of splitStatements(await readFile(join(dir, file), 'utf8'))) {
          await conn.query(statement);
        }
        await conn.query('INSERT INTO schema_migrations (version) VALUES (?)', [file]);
        logger?.info({ migration: file }, 'migration applied');
      }
      return pending;
    } finally {
      await conn.query("SELECT RELEASE_LOCK(CONCAT('migrate:', DATABASE()))");
    }
  } finally {
    conn.release();
  }
}

/**
 * The `migrate` command of a service: applies what is pending, logs it, and
 * closes the pool. `then` (the `seed` command's work) runs on the migrated
 * database before the pool closes.
 */
export async function migrateOnce(
  settings: MysqlSettings,
  dir: string,
  logger: Logger,
  then?: (pool: Pool) => Promise<void>,
): Promise<void> {
  const pool = await createMysqlPool(settings);
  try {
    const applied = await migrate(pool, dir, logger);
    logger.info({ applied }, applied.length ? 'migrations applied' : 'schema is up to date');
    await then?.(pool);
  } finally {
    await pool.end();
  }
}
