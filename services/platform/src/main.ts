import {
  createLogger,
  createMetrics,
  createMysqlPool,
  listeningMessage,
  messageBody,
  migrate,
  mysqlSettingsFrom,
  onShutdownSignals,
  runService,
  serve,
  shutdownGracefully,
} from '@svc/common';
import { createApp } from './app.js';
import { loadPlatformConfig } from './config.js';
import { eventOutbox } from './feed/event-outbox.js';
import { eventRelay } from './feed/event-relay.js';
import { jetStreamEvents } from './feed/jetstream.js';
import { migrationsDir } from './migrations-dir.js';
import { platformDatabase } from './store/database.js';
import { replicaSet } from './store/replicas/replica-set.js';
import { startSweeps } from './sweeps.js';
import { webhookDeliverer } from './webhooks/deliverer.js';
import { webhookRepository } from './webhooks/webhook.repository.js';

await runService('platform', async () => {
  const config = loadPlatformConfig();
  const logger = createLogger({
    name: 'platform',
    level: config.LOG_LEVEL,
    format: config.LOG_FORMAT,
  });
  // Keyed creates send their transaction as one query (store/database.ts).
  const pool = await createMysqlPool({ ...mysqlSettingsFrom(config), multipleStatements: true });
  await migrate(pool, migrationsDir, logger);
  const replicas =
    config.MYSQL_REPLICA_HOSTS.length > 0
      ? await replicaSet(pool, {
          primary: mysqlSettingsFrom(config),
          hosts: config.MYSQL_REPLICA_HOSTS,
          waitMs: config.REPLICA_WAIT_MS,
          queryTimeoutMs: config.MYSQL_QUERY_TIMEOUT_MS,
        })
      : undefined;

  const metrics = config.METRICS_ENABLED ? createMetrics({ pool }) : undefined;
  const db = platformDatabase(pool, config.MYSQL_QUERY_TIMEOUT_MS);
  const outbox = eventOutbox(db, logger);
  const relay = config.EVENTS_NATS_URL
    ? eventRelay(
        db,
        outbox.events,
        jetStreamEvents({ url: config.EVENTS_NATS_URL, stream: config.EVENTS_NATS_STREAM }),
        { stream: config.EVENTS_NATS_STREAM, logger },
      )
    : undefined;
  const deliverer = webhookDeliverer(
    { webhooks: webhookRepository(db), events: outbox.events, logger },
    {
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
      disableAfterHours: config.WEBHOOK_DISABLE_AFTER_HOURS,
    },
  );
  const app = createApp({
    outbox,
    deliverer,
    webhooksAllowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    webhookOldSecretHours: config.WEBHOOK_OLD_SECRET_HOURS,
    pool,
    logger,
    metrics,
    metricsRoute: config.METRICS_PORT === 0,
    bodyLimitKb: config.BODY_LIMIT_KB,
    queryTimeoutMs: config.MYSQL_QUERY_TIMEOUT_MS,
    adminToken: config.PLATFORM_ADMIN_TOKEN,
    listConcurrency: config.LIST_CONCURRENCY,
    listCacheMb: config.LIST_CACHE_MB,
    idempotencyTtlSeconds: config.IDEMPOTENCY_TTL_SECONDS,
    insertConcurrency: config.INSERT_CONCURRENCY,
    replicas,
    relay,
  });
  const { server, closeMetrics, urls } = await serve(app, config, {
    logger,
    envelope: messageBody,
    metrics,
  });
  const adminRoutes = config.PLATFORM_ADMIN_TOKEN ? 'token required' : 'open';
  logger.info(
    {
      port: config.PORT,
      host: config.HOST,
      adminRoutes,
      replicas: replicas?.names,
      relay: relay ? config.EVENTS_NATS_STREAM : undefined,
    },
    listeningMessage('platform', urls),
  );
  if (!config.PLATFORM_ADMIN_TOKEN) {
    logger.warn(
      "PLATFORM_ADMIN_TOKEN is unset: the administrator routes and customers' phone numbers are open to anyone",
    );
  }
  const stopSweeping = startSweeps(db, {
    ttlSeconds: config.IDEMPOTENCY_TTL_SECONDS,
    retentionDays: config.EVENT_RETENTION_DAYS,
    relayStream: relay ? config.EVENTS_NATS_STREAM : undefined,
    logger,
  });
  const stopPublishing = outbox.publisher.start();
  deliverer.start();
  relay?.start();
  const shutdown = shutdownGracefully(server, {
    graceMs: config.SHUTDOWN_GRACE_MS,
    logger,
    close: async () => {
      await Promise.all([stopSweeping(), stopPublishing(), deliverer.stop(), relay?.stop()]);
      return Promise.all([pool.end(), replicas?.end(), closeMetrics()]);
    },
  });
  // Open event streams would hold the shutdown for its whole grace: they end first, and their clients resume elsewhere.
  onShutdownSignals(() => {
    outbox.hub.endAll();
    return shutdown();
  });
});
