import { createLogger, migrateOnce, mysqlSettingsFrom, runService } from '@svc/common';
import { loadPlatformConfig } from './config.js';
import { migrationsDir } from './migrations-dir.js';

await runService('platform migrate', async () => {
  const config = loadPlatformConfig();
  const logger = createLogger({
    name: 'platform',
    level: config.LOG_LEVEL,
    format: config.LOG_FORMAT,
  });
  await migrateOnce(mysqlSettingsFrom(config), migrationsDir, logger);
});
