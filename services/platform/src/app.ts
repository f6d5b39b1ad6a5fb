import {
  createBaseApp,
  errorHandler,
  healthRouter,
  type Logger,
  notFound,
  type Pool,
} from '@svc/common';
import type { Express } from 'express';

export interface AppDeps {
  pool: Pool;
  logger: Logger;
  bodyLimitKb?: number;
}

export function createApp({ pool, logger, bodyLimitKb }: AppDeps): Express {
  const app = createBaseApp({ logger, bodyLimitKb });
  app.use(healthRouter({ mysql: () => pool.query('SELECT 1') }));
  app.use(notFound());
  app.use(errorHandler());
  return app;
}
