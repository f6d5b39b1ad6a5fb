import { createLogger, migrateOnce, mysqlSettingsFrom, runService } from '@svc/common';
import { loadAuthConfig } from './config.js';
import { migrationsDir } from './migrations-dir.js';

await runService('auth migrate', async () => {
  const config = loadAuthConfig();
  const logger = createLogger({ name: 'auth', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  await migrateOnce(mysqlSettingsFrom(config), migrationsDir, logger);
});
