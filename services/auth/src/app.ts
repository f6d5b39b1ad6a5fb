import {
  createBaseApp,
  docsRouter,
  errorHandler,
  healthRouter,
  type Logger,
  notFound,
  type Pool,
  type RedisClient,
} from '@svc/common';
import type { Express } from 'express';
import { type AuthSettings, defaultSettings } from './config.js';
import { openApiDocument } from './openapi.js';
import { userRouter } from './users/user.routes.js';

export interface AppDeps {
  pool: Pool;
  redis: RedisClient;
  logger: Logger;
  bodyLimitKb?: number;
  /** Defaults as with an empty environment. */
  settings?: Partial<AuthSettings>;
}

export function createApp({ pool, redis, logger, bodyLimitKb, settings }: AppDeps): Express {
  const resolved: AuthSettings = { ...defaultSettings, ...settings };
  if (resolved.tokenScheme === 'md5') {
    logger.warn(
      'TOKEN_SCHEME=md5: a token is the MD5 of username and password, so whoever sees one can ' +
        'brute-force the password from it; use it only while sharing Redis with the old backend',
    );
  }
  const app = createBaseApp({ logger, bodyLimitKb });
  app.set('trust proxy', resolved.trustProxy);
  app.use(healthRouter({ redis: () => redis.ping(), mysql: () => pool.query('SELECT 1') }));
  app.use(userRouter({ pool, redis, settings: resolved }));
  app.use(docsRouter(openApiDocument));
  app.use(notFound());
  app.use(errorHandler());
  return app;
}
