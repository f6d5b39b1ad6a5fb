import { createLogger, migrateOnce, mysqlSettingsFrom, runService } from '@svc/common';
import { loadPlatformConfig } from './config.js';
import { seedDemoData } from './demo-data.js';
import { migrationsDir } from './migrations-dir.js';

await runService('platform seed', async () => {
  const config = loadPlatformConfig();
  const logger = createLogger({
    name: 'platform',
    level: config.LOG_LEVEL,
    format: config.LOG_FORMAT,
  });
  await migrateOnce(mysqlSettingsFrom(config), migrationsDir, logger, async (pool) => {
    const added = await seedDemoData(pool);
    logger.info({ added }, 'demo merchants, services and orders in place');
  });
});
