import {
  connectRedis,
  createLogger,
  createMetrics,
  createMysqlPool,
  listeningMessage,
  messageBody,
  migrate,
  mysqlSettingsFrom,
  onShutdownSignals,
  redisSettingsFrom,
  runService,
  serve,
  shutdownGracefully,
} from '@svc/common';
import { createApp } from './app.js';
import { authSettingsFrom, loadAuthConfig } from './config.js';
import { migrationsDir } from './migrations-dir.js';
import { evictionWarnings } from './redis-eviction.js';

await runService('auth', async () => {
  const config = loadAuthConfig();
  const logger = createLogger({ name: 'auth', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const redis = await connectRedis(redisSettingsFrom(config), logger);
  const redisWarnings = await evictionWarnings(redis, logger);
  const pool = await createMysqlPool(mysqlSettingsFrom(config));
  await migrate(pool, migrationsDir, logger);

  const metrics = config.METRICS_ENABLED ? createMetrics({ pool }) : undefined;
  const app = createApp({
    pool,
    redis,
    logger,
    metrics,
    metricsRoute: config.METRICS_PORT === 0,
    bodyLimitKb: config.BODY_LIMIT_KB,
    settings: authSettingsFrom(config),
    redisWarnings,
  });
  const { server, closeMetrics, urls } = await serve(app, config, {
    logger,
    envelope: messageBody,
    metrics,
  });
  logger.info({ port: config.PORT, host: config.HOST }, listeningMessage('auth', urls));
  onShutdownSignals(
    shutdownGracefully(server, {
      graceMs: config.SHUTDOWN_GRACE_MS,
      logger,
      close: () => Promise.all([pool.end(), redis.quit(), closeMetrics()]),
    }),
  );
});
