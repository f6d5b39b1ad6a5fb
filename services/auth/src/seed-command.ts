import { createLogger, migrateOnce, mysqlSettingsFrom, runService } from '@svc/common';
import { loadAuthConfig } from './config.js';
import { DEMO_USER, seedDemoData } from './demo-data.js';
import { migrationsDir } from './migrations-dir.js';

await runService('auth seed', async () => {
  const config = loadAuthConfig();
  const logger = createLogger({ name: 'auth', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  await migrateOnce(mysqlSettingsFrom(config), migrationsDir, logger, async (pool) => {
    const added = await seedDemoData(pool);
    const user = DEMO_USER.username;
    logger.info(added ? `demo user ${user} added` : `demo user ${user} was already there`);
  });
});
