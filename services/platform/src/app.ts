import {
  createBaseApp,
  docsRouter,
  errorHandler,
  healthRouter,
  type Logger,
  type Metrics,
  notFound,
  type Pool,
} from '@svc/common';
import type { Express } from 'express';
import { createDatabase } from './db/database.js';
import { createSlots } from './db/slots.js';
import { adminGuard } from './http/admin-token.js';
import { endpointRouter } from './http/endpoints.js';
import { holdBodyErrors, renderFailure } from './http/failure.js';
import { undecodableSegmentsLiterally } from './http/undecodable-path.js';
import { merchantRepository } from './merchants/merchant.repository.js';
import { merchantRoutes } from './merchants/merchant.routes.js';
import { serviceRepository } from './offerings/service.repository.js';
import { serviceRoutes } from './offerings/service.routes.js';
import { platformDocument } from './openapi.js';
import { orderRepository } from './orders/order.repository.js';
import { orderRoutes } from './orders/order.routes.js';

export interface AppDeps {
  pool: Pool;
  logger: Logger;
  bodyLimitKb?: number;
  /** Bounds every query, so a stuck server cannot hold a request. */
  queryTimeoutMs?: number;
  /** PLATFORM_ADMIN_TOKEN: the administrator routes then take it as a Bearer token. */
  adminToken?: string;
  /** LIST_CONCURRENCY: whole lists of each route read at once. */
  listConcurrency?: number;
  /** Request and pool metrics; none when absent. */
  metrics?: Metrics;
  /** Serve GET /metrics here (false when METRICS_PORT gives it its own listener). */
  metricsRoute?: boolean;
}

export function createApp(deps: AppDeps): Express {
  const { pool, logger, bodyLimitKb, queryTimeoutMs, adminToken, listConcurrency = 2 } = deps;
  const { metrics, metricsRoute } = deps;
  const wholeLists = () => createSlots(listConcurrency);
  const db = createDatabase(pool, queryTimeoutMs);
  const guard = adminGuard(adminToken);
  const app = createBaseApp({ logger, bodyLimitKb, metrics, metricsRoute });
  app.use(holdBodyErrors);
  app.use(undecodableSegmentsLiterally);
  // Every route of the spec in one router, ahead of the probes and the docs: a
  // client's request then enters one router, not five (measured on order create).
  const endpoints = [
    ...merchantRoutes(merchantRepository(db), wholeLists()),
    ...serviceRoutes(serviceRepository(db), wholeLists()),
    ...orderRoutes(orderRepository(db), wholeLists()),
  ];
  app.use(endpointRouter(endpoints, { adminGuard: guard }));
  app.use(healthRouter({ mysql: () => db.select('SELECT 1') }));
  app.use(docsRouter(platformDocument));
  app.use(notFound(renderFailure));
  app.use(errorHandler(renderFailure));
  return app;
}
