import {
  createBaseApp,
  docsRouter,
  healthRouter,
  type Logger,
  type Metrics,
  type Pool,
  type RedisClient,
} from '@svc/common';
import express, { type Express } from 'express';
import { authMetrics } from './auth-metrics.js';
import { type AuthSettings, defaultSettings } from './config.js';
import { messageBody } from './http/envelope.js';
import { errorHandler, notFound } from './http/errors.js';
import { UNAVAILABLE } from './http/messages.js';
import { openApiDocument } from './openapi.js';
import { userRouter } from './users/user.router.js';

interface AppDeps {
  pool: Pool;
  redis: RedisClient;
  logger: Logger;
  bodyLimitKb?: number;
  /** Defaults as with an empty environment. */
  settings?: Partial<AuthSettings>;
  /** Request, login, guard and store metrics; none when absent. */
  metrics?: Metrics;
  /** Serve GET /metrics here (false when METRICS_PORT gives it its own listener). */
  metricsRoute?: boolean;
}

export function createApp(deps: AppDeps): Express {
  const { pool, redis, logger, bodyLimitKb = 100, settings, metrics, metricsRoute } = deps;
  const resolved: AuthSettings = { ...defaultSettings, ...settings };
  if (resolved.tokenScheme === 'md5') {
    logger.warn(
      'TOKEN_SCHEME=md5: a token is the MD5 of username and password, so whoever sees one can ' +
        'brute-force the password from it; use it only while sharing Redis with the old backend',
    );
  }
  const app = createBaseApp({ logger, metrics, metricsRoute });
  const observe = metrics && authMetrics(metrics.registry, redis);
  app.set('trust proxy', resolved.trustProxy);
  const checks = { redis: () => redis.ping(), mysql: () => pool.query('SELECT 1') };
  app.use(healthRouter(checks, { envelope: messageBody, notReady: UNAVAILABLE }));
  // Each user route reads its own body, so a refused one is still counted under the route.
  const json = express.json({ limit: `${bodyLimitKb}kb` });
  app.use(userRouter({ pool, redis, settings: resolved, json, observe }));
  app.use(docsRouter(openApiDocument));
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
