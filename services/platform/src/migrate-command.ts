import { createLogger, createMysqlPool, migrate, mysqlSettingsFrom, runService } from '@svc/common';
import { loadPlatformConfig } from './config.js';
import { migrationsDir } from './migrations-dir.js';

await runService('platform migrate', async () => {
  const config = loadPlatformConfig();
  const logger = createLogger({ name: 'platform', level: config.LOG_LEVEL });
  const pool = await createMysqlPool(mysqlSettingsFrom(config));
  try {
    const applied = await migrate(pool, migrationsDir, logger);
    logger.info({ applied }, applied.length ? 'migrations applied' : 'schema is up to date');
  } finally {
    await pool.end();
  }
});
