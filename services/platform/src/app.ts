import {
  createBaseApp,
  docsRouter,
  healthRouter,
  type Logger,
  type Metrics,
  type Pool,
} from '@svc/common';
import express, { type Express } from 'express';
import { platformDatabase } from './db/database.js';
import { keptKeys } from './db/kept-keys.js';
import { eventRouter } from './events/event.router.js';
import { type EventOutbox, eventOutbox } from './events/event-outbox.js';
import { adminOnly } from './http/admin-token.js';
import { messageBody } from './http/envelopes.js';
import { errorHandler, notFound } from './http/errors.js';
import { NOT_READY } from './http/messages.js';
import type { RouterDeps } from './http/router-deps.js';
import { undecodableSegmentsLiterally } from './http/undecodable-path.js';
import { idempotentCreates } from './idempotency/idempotent-create.js';
import { createSlots } from './lists/slots.js';
import { merchantRepository } from './merchants/merchant.repository.js';
import { merchantRouter } from './merchants/merchant.router.js';
import { serviceRepository } from './offerings/service.repository.js';
import { serviceRouter } from './offerings/service.router.js';
import { platformDocument, routeDocs, statusRoutes } from './openapi.js';
import { orderRepository } from './orders/order.repository.js';
import { orderRouter } from './orders/order.router.js';
import { platformMetrics } from './platform-metrics.js';
import type { ReplicaSet } from './replicas/replica-set.js';
import type { WebhookDeliverer } from './webhooks/deliverer.js';
import { webhookRepository } from './webhooks/webhook.repository.js';
import { webhookRouter } from './webhooks/webhook.router.js';

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
  /** The webhook deliverer main runs, for its metrics. */
  deliverer?: WebhookDeliverer;
}

/** The headers of the platform's answers that browser clients read. */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-Total-Count',
  'X-Next-Cursor',
  'Link',
  'Idempotent-Replayed',
  'Retry-After',
];

export function createApp(deps: AppDeps): Express {
  const { pool, logger, bodyLimitKb = 100, queryTimeoutMs, adminToken, listConcurrency = 2 } = deps;
  const db = platformDatabase(pool, queryTimeoutMs, deps.replicas?.reads);
  const keys = keptKeys(db, deps.idempotencyTtlSeconds ?? 86_400);
  const once = idempotentCreates();
  // Each spec route reads its own body, so a broken one is answered in that route's envelope.
  const json = express.json({ limit: `${bodyLimitKb}kb` });
  const admin = adminOnly(adminToken);
  const routerDeps = (): RouterDeps => ({
    wholeLists: createSlots(listConcurrency),
    json,
    adminOnly: admin,
    createOnce: once,
  });

  const app = createBaseApp({
    logger,
    metrics: deps.metrics,
    metricsRoute: deps.metricsRoute,
    exposedHeaders: EXPOSED_HEADERS,
  });
  app.use(undecodableSegmentsLiterally);
  const orders = orderRepository(db, keys, { insertConcurrency: deps.insertConcurrency });
  const outbox = deps.outbox ?? eventOutbox(platformDatabase(pool, queryTimeoutMs), logger);
  if (deps.metrics) {
    platformMetrics(
      deps.metrics.registry,
      { orders, outbox, deliveries: deps.deliverer?.outcomes },
      deps.replicas,
    );
  }
  app.use(orderRouter(orders, routerDeps()));
  app.use(merchantRouter(merchantRepository(db, keys), routerDeps()));
  app.use(serviceRouter(serviceRepository(db, keys), routerDeps()));
  app.use(eventRouter(outbox, routerDeps()));
  app.use(
    webhookRouter(
      { webhooks: webhookRepository(db), allowPrivate: deps.webhooksAllowPrivate ?? false },
      routerDeps(),
    ),
  );
  app.use(
    healthRouter(
      { mysql: () => db.select('SELECT 1') },
      { envelope: messageBody, notReady: NOT_READY },
    ),
  );
  app.use(docsRouter(platformDocument));
  app.use(notFound);
  app.use(errorHandler([...routeDocs, ...statusRoutes]));
  return app;
}
