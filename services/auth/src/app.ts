import {
  createBaseApp,
  errorHandler,
  healthRouter,
  type Logger,
  notFound,
  type Pool,
} from '@svc/common';
import type { Express } from 'express';
import type { Redis } from 'ioredis';

export interface AppDeps {
  pool: Pool;
  redis: Redis;
  logger: Logger;
  bodyLimitKb?: number;
}

export function createApp({ pool, redis, logger, bodyLimitKb }: AppDeps): Express {
  const app = createBaseApp({ logger, bodyLimitKb });
  app.use(healthRouter({ redis: () => redis.ping(), mysql: () => pool.query('SELECT 1') }));
  app.use(notFound());
  app.use(errorHandler());
  return app;
}
