import {
  createBaseApp,
  docsRouter,
  errorHandler,
  healthRouter,
  type Logger,
  notFound,
  type Pool,
} from '@svc/common';
import type { Express } from 'express';
import { createDatabase } from './db/database.js';
import { holdBodyErrors, renderFailure } from './http/failure.js';
import { undecodableSegmentsLiterally } from './http/undecodable-path.js';
import { merchantRepository } from './merchants/merchant.repository.js';
import { merchantRoutes } from './merchants/merchant.routes.js';
import { platformDocument } from './openapi.js';
import { orderRepository } from './orders/order.repository.js';
import { orderRoutes } from './orders/order.routes.js';
import { serviceRepository } from './services/service.repository.js';
import { serviceRoutes } from './services/service.routes.js';

export interface AppDeps {
  pool: Pool;
  logger: Logger;
  bodyLimitKb?: number;
  /** Bounds every query, so a stuck server cannot hold a request. */
  queryTimeoutMs?: number;
}

export function createApp({ pool, logger, bodyLimitKb, queryTimeoutMs }: AppDeps): Express {
  const db = createDatabase(pool, queryTimeoutMs);
  const app = createBaseApp({ logger, bodyLimitKb });
  app.use(holdBodyErrors);
  app.use(undecodableSegmentsLiterally);
  app.use(healthRouter({ mysql: () => db.select('SELECT 1') }));
  app.use(merchantRoutes(merchantRepository(db)));
  app.use(serviceRoutes(serviceRepository(db)));
  app.use(orderRoutes(orderRepository(db)));
  app.use(docsRouter(platformDocument));
  app.use(notFound(renderFailure));
  app.use(errorHandler(renderFailure));
  return app;
}
