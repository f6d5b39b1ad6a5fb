import {
  createBaseApp,
  docsRouter,
  healthRouter,
  jsonBodyParser,
  type Logger,
  type Metrics,
  messageBody,
  type Pool,
} from '@svc/common';
import type { Express } from 'express';
import { loadPlatformConfig } from './config.js';
import { eventHandlers } from './feed/event.handlers.js';
import { eventRoutes } from './feed/event.routes.js';
import { type EventOutbox, eventOutbox } from './feed/event-outbox.js';
import type { EventRelay } from './feed/event-relay.js';
import { adminOnly } from './http/admin-token.js';
import { errorHandler, notFound } from './http/errors.js';
import { keptLists } from './http/lists/kept-lists.js';
import { createSlots } from './http/lists/slots.js';
import { NOT_READY } from './http/messages.js';
import type { RouterDeps } from './http/router-deps.js';
import { failureEnvelopes, type RouteMiddleware, routerOf } from './http/routes.js';
import { undecodableSegmentsLiterally } from './http/undecodable-path.js';
import { IDEMPOTENT_REPLAYED } from './idempotency/idempotency.messages.js';
import { keptKeys } from './idempotency/kept-keys.js';
import { merchantHandlers } from './merchants/merchant.handlers.js';
import { merchantRepository } from './merchants/merchant.repository.js';
import { merchantRoutes } from './merchants/merchant.routes.js';
import { serviceHandlers } from './offerings/service.handlers.js';
import { serviceRepository } from './offerings/service.repository.js';
import { serviceRoutes } from './offerings/service.routes.js';
import { platformDocument, platformRoutes } from './openapi.js';
import { orderHandlers } from './orders/order.handlers.js';
import { orderRepository } from './orders/order.repository.js';
import { orderRoutes } from './orders/order.routes.js';
import { platformMetrics } from './platform-metrics.js';
import { platformDatabase } from './store/database.js';
import { listStamps } from './store/events/list-stamps.js';
import type { ReplicaSet } from './store/replicas/replica-set.js';
import type { WebhookDeliverer } from './webhooks/deliverer.js';
import { webhookHandlers } from './webhooks/webhook.handlers.js';
import { webhookRepository } from './webhooks/webhook.repository.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';

export interface AppDeps {
  pool: Pool;
  logger: Logger;
  bodyLimitKb?: number;
  /** Bounds every query, so a stuck server cannot hold a request. */
  queryTimeoutMs?: number;
  /** PLATFORM_ADMIN_TOKEN: the administrator routes then take it as a Bearer token. */
  adminToken?: string;
  /** LIST_CONCURRENCY: whole lists of each resource read at once. */
  listConcurrency?: number;
  /** LIST_CACHE_MB: the list bodies kept, while unchanged, at most. */
  listCacheMb?: number;
  /** IDEMPOTENCY_TTL_SECONDS: how long a create's Idempotency-Key is kept. */
  idempotencyTtlSeconds?: number;
  /** INSERT_CONCURRENCY: shared order INSERTs running at once. */
  insertConcurrency?: number;
  /** Request and pool metrics; none when absent. */
  metrics?: Metrics;
  /** MYSQL_REPLICA_HOSTS: the list routes then read from these replicas. */
  replicas?: ReplicaSet;
  /** Serve GET /metrics here (false when METRICS_PORT gives it its own listener). */
  metricsRoute?: boolean;
  /** The events' publisher and hub, when main runs them in the background; the app's own otherwise. */
  outbox?: EventOutbox;
  /** WEBHOOK_ALLOW_PRIVATE: webhook URLs may reach loopback, private and link-local addresses. */
  webhooksAllowPrivate?: boolean;
  /** WEBHOOK_OLD_SECRET_HOURS: how long a rotated-out secret still signs. */
  webhookOldSecretHours?: number;
  /** The webhook deliverer main runs, for its metrics. */
  deliverer?: WebhookDeliverer;
  /** EVENTS_NATS_URL: the relay of the events to JetStream main runs, for /readyz and its metrics. */
  relay?: EventRelay;
}

/** The headers of the platform's answers that browser clients read. */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-Total-Count',
  'X-Next-Cursor',
  'Link',
  'ETag',
  IDEMPOTENT_REPLAYED,
  'Retry-After',
];

/** The shipped configuration: what an app whose deps leave a setting out (a test's) runs with. */
const DEFAULTS = loadPlatformConfig({});

export function createApp(deps: AppDeps): Express {
  const { pool, logger, queryTimeoutMs, adminToken } = deps;
  const bodyLimitKb = deps.bodyLimitKb ?? DEFAULTS.BODY_LIMIT_KB;
  const listConcurrency = deps.listConcurrency ?? DEFAULTS.LIST_CONCURRENCY;
  const db = platformDatabase(pool, queryTimeoutMs, deps.replicas?.reads);
  const keys = keptKeys(db, deps.idempotencyTtlSeconds ?? DEFAULTS.IDEMPOTENCY_TTL_SECONDS);
  // Each route reads its own body, so a broken one is answered in that route's envelope.
  const middleware: RouteMiddleware = {
    json: jsonBodyParser(bodyLimitKb),
    adminOnly: adminOnly(adminToken),
  };
  // Each resource bounds its own whole lists.
  const kept = keptLists({
    maxBytes: (deps.listCacheMb ?? DEFAULTS.LIST_CACHE_MB) * 1024 * 1024,
    stamp: listStamps(db, { replicas: deps.replicas !== undefined }).stamp,
  });
  const routerDeps = (): RouterDeps => ({ wholeLists: createSlots(listConcurrency), kept });

  const app = createBaseApp({
    logger,
    metrics: deps.metrics,
    metricsRoute: deps.metricsRoute,
    exposedHeaders: EXPOSED_HEADERS,
  });
  app.use(undecodableSegmentsLiterally);
  const orders = orderRepository(db, keys, {
    insertConcurrency: deps.insertConcurrency ?? DEFAULTS.INSERT_CONCURRENCY,
  });
  const outbox = deps.outbox ?? eventOutbox(platformDatabase(pool, queryTimeoutMs), logger);
  if (deps.metrics) {
    platformMetrics(
      deps.metrics.registry,
      { orders, outbox, lists: kept, deliveries: deps.deliverer?.outcomes, relay: deps.relay },
      deps.replicas,
    );
  }
  const merchants = merchantRepository(db, keys);
  const services = serviceRepository(db, keys);
  const webhooks = webhookHandlers({
    webhooks: webhookRepository(db),
    allowPrivate: deps.webhooksAllowPrivate ?? DEFAULTS.WEBHOOK_ALLOW_PRIVATE,
    oldSecretHours: deps.webhookOldSecretHours ?? DEFAULTS.WEBHOOK_OLD_SECRET_HOURS,
  });
  // One router per route table (http/routes.ts); the orders first, the busiest.
  app.use(routerOf(orderRoutes, orderHandlers(orders, routerDeps()), middleware));
  app.use(routerOf(merchantRoutes, merchantHandlers(merchants, routerDeps()), middleware));
  app.use(routerOf(serviceRoutes, serviceHandlers(services, routerDeps()), middleware));
  app.use(routerOf(eventRoutes, eventHandlers(outbox), middleware));
  app.use(routerOf(webhookRoutes, webhooks, middleware));
  const states: Record<string, () => string> = deps.relay ? { relay: deps.relay.state } : {};
  const checks = { mysql: () => db.select('SELECT 1') };
  app.use(healthRouter(checks, { envelope: messageBody, notReady: NOT_READY, states }));
  app.use(docsRouter(platformDocument));
  app.use(notFound);
  app.use(errorHandler(failureEnvelopes(platformRoutes)));
  return app;
}
