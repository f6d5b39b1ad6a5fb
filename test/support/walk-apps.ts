import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import {
  connectRedis,
  createLogger,
  createMetrics,
  createMysqlPool,
  messageBody,
  migrate,
  type Pool,
  serve,
} from '@svc/common';
import { createTestDatabase, createTestRedis } from '@svc/test-kit';
import type { Express } from 'express';
import { createApp as createAuthApp } from '../../services/auth/src/app.js';
import { migrationsDir as authMigrations } from '../../services/auth/src/migrations-dir.js';
import { createApp as createPlatformApp } from '../../services/platform/src/app.js';
import { eventOutbox } from '../../services/platform/src/feed/event-outbox.js';
import { eventRelay } from '../../services/platform/src/feed/event-relay.js';
import { jetStreamEvents } from '../../services/platform/src/feed/jetstream.js';
import { migrationsDir as platformMigrations } from '../../services/platform/src/migrations-dir.js';
import { platformDatabase } from '../../services/platform/src/store/database.js';
import { webhookDeliverer } from '../../services/platform/src/webhooks/deliverer.js';
import { webhookRepository } from '../../services/platform/src/webhooks/webhook.repository.js';

/**
 * The two apps as their main.ts builds them with an empty environment (metrics
 * on and served by the app, info logs, no administrator token), on stores of
 * this file's own. The logs are written nowhere, through the production logger.
 */
export interface WalkApps {
  platform: Express;
  auth: Express;
  close(): Promise<void>;
}

const logger = (name: string) =>
  createLogger({ name, level: 'info' }, new Writable({ write: (_line, _enc, done) => done() }));

async function database(multipleStatements: boolean, migrations: string) {
  const created = await createTestDatabase();
  const pool: Pool = await createMysqlPool({ ...created.settings, multipleStatements });
  await migrate(pool, migrations);
  // A running service's pool has its connections open: one opened during a walk would add its handler.
  const held = await Promise.all(Array.from({ length: 4 }, () => pool.getConnection()));
  for (const conn of held) conn.release();
  return {
    pool,
    async close() {
      await pool.end();
      await created.drop();
    },
  };
}

export async function walkApps(): Promise<WalkApps> {
  // The platform's main asks for multiple statements: keyed creates send their transaction as one query.
  const platformDb = await database(true, platformMigrations);
  const authDb = await database(false, authMigrations);
  const redis = await connectRedis((await createTestRedis()).settings);
  const platform = createPlatformApp({
    pool: platformDb.pool,
    logger: logger('platform'),
    metrics: createMetrics({ pool: platformDb.pool }),
    metricsRoute: true,
  });
  const auth = createAuthApp({
    pool: authDb.pool,
    redis,
    logger: logger('auth'),
    metrics: createMetrics({ pool: authDb.pool }),
    metricsRoute: true,
  });
  return {
    platform,
    auth,
    async close() {
      redis.disconnect();
      await Promise.all([platformDb.close(), authDb.close()]);
    },
  };
}

/** POSTs `body` as JSON; `headers` added. */
export const postJson = (url: string, body: object, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/**
 * The platform as main runs it for events, on a database of its own: served
 * on a loopback port and, with `deliver`, its publisher and its webhook
 * deliverer started (loopback receivers allowed); with `relayTo` (a NATS
 * URL), its relay to the stream PLATFORM_EVENTS there. `sql` runs statements
 * on a connection of the test's own, outside the service.
 */
export async function eventsApp({ deliver, relayTo }: { deliver: boolean; relayTo?: string }) {
  const db = await database(true, platformMigrations);
  const log = logger('platform');
  const outbox = eventOutbox(platformDatabase(db.pool), log);
  const stream = 'PLATFORM_EVENTS';
  const relay = relayTo
    ? eventRelay(
        platformDatabase(db.pool),
        outbox.events,
        jetStreamEvents({ url: relayTo, stream }),
        { stream, logger: log },
      )
    : undefined;
  relay?.start();
  const deliverer = webhookDeliverer(
    { webhooks: webhookRepository(platformDatabase(db.pool)), events: outbox.events, logger: log },
    { allowPrivate: true },
  );
  const app = createPlatformApp({ pool: db.pool, logger: log, outbox, deliverer });
  const { server } = await serve(
    app,
    { PORT: 0, HOST: '127.0.0.1', SEND_IDLE_TIMEOUT_MS: 60_000, METRICS_PORT: 0 },
    { logger: log, envelope: messageBody },
  );
  // As main starts them: every instance numbers and publishes.
  const stopPublishing = outbox.publisher.start();
  if (deliver) deliverer.start();
  const own = await db.pool.getConnection();
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sql: async (sql: string, values: unknown[] = []) => (await own.query(sql, values))[0],
    /** The order.created events the instance has counted as published (its metric). */
    ordersPublished: () => outbox.published.get('order.created') ?? 0,
    async close() {
      outbox.hub.endAll();
      await Promise.all([stopPublishing(), deliverer.stop(), relay?.stop()]);
      own.release();
      await new Promise((resolve) => server.close(resolve));
      await db.close();
    },
  };
}
