import {
  connectRedis,
  createLogger,
  createMysqlPool,
  listen,
  migrate,
  mysqlSettingsFrom,
  onShutdownSignals,
  redisSettingsFrom,
  runService,
  shutdownGracefully,
} from '@svc/common';
import { createApp } from './app.js';
import { authSettingsFrom, loadAuthConfig } from './config.js';
import { migrationsDir } from './migrations-dir.js';

await runService('auth', async () => {
  const config = loadAuthConfig();
  const logger = createLogger({ name: 'auth', level: config.LOG_LEVEL });
  const redis = await connectRedis(redisSettingsFrom(config), logger);
  const pool = await createMysqlPool(mysqlSettingsFrom(config));
  await migrate(pool, migrationsDir, logger);

  const app = createApp({
    pool,
    redis,
    logger,
    bodyLimitKb: config.BODY_LIMIT_KB,
    settings: authSettingsFrom(config),
  });
  const server = await listen(app, {
    port: config.PORT,
    host: config.HOST,
    logger,
    sendIdleTimeoutMs: config.SEND_IDLE_TIMEOUT_MS,
  });
  logger.info({ port: config.PORT, host: config.HOST }, 'auth listening');
  onShutdownSignals(
    shutdownGracefully(server, {
      graceMs: config.SHUTDOWN_GRACE_MS,
      logger,
      close: () => Promise.all([pool.end(), redis.quit()]),
    }),
  );
});
