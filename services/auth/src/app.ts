import {
  createBaseApp,
  createDatabase,
  docsRouter,
  healthRouter,
  jsonBodyParser,
  type Logger,
  type Metrics,
  messageBody,
  type Pool,
  type RedisClient,
} from '@svc/common';
import { STORE_UNAVAILABLE_MESSAGE } from '@svc/session-guard';
import type { Express } from 'express';
import { authMetrics } from './auth-metrics.js';
import { type AuthSettings, defaultSettings } from './config.js';
import { errorHandler, notFound } from './http/errors.js';
import { type RouteMiddleware, routerOf } from './http/routes.js';
import { openApiDocument } from './openapi.js';
import { secretRepository } from './security/secret.repository.js';
import { securityEventHandlers } from './security/security-event.handlers.js';
import { securityEventRepository } from './security/security-event.repository.js';
import { securityEventRoutes } from './security/security-event.routes.js';
import { securityLog } from './security/security-log.js';
import { sessionHandlers } from './sessions/session.handlers.js';
import { sessionRepository } from './sessions/session.repository.js';
import { sessionRoutes } from './sessions/session.routes.js';
import { sessionGuard } from './sessions/session-guard.js';
import { challenges } from './two-factor/challenges.js';
import { twoFactorHandlers } from './two-factor/two-factor.handlers.js';
import { twoFactorRepository } from './two-factor/two-factor.repository.js';
import { twoFactorRoutes } from './two-factor/two-factor.routes.js';
import { limitedChecks } from './users/limited-check.js';
import { loginLimiter } from './users/login-limiter.js';
import { sessionOpening } from './users/session-opening.js';
import { userHandlers } from './users/user.handlers.js';
import { userRepository } from './users/user.repository.js';
import { userRoutes } from './users/user.routes.js';

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
  /** What start-up found amiss in Redis (an evicting maxmemory-policy), shown by /readyz. */
  redisWarnings?: string[];
}

/** Response headers a browser script may read: the request id, a lock's wait, the pages' links. */
const EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'X-Total-Count', 'X-Next-Cursor', 'Link'];

const MD5_WARNING =
  'TOKEN_SCHEME=md5: a token is the MD5 of username and password, so whoever sees one can ' +
  'brute-force the password from it; use it only while sharing Redis with the old backend';

export function createApp(deps: AppDeps): Express {
  const { pool, redis, logger, bodyLimitKb = 100, metrics, metricsRoute } = deps;
  const settings: AuthSettings = { ...defaultSettings, ...deps.settings };
  if (settings.tokenScheme === 'md5') logger.warn(MD5_WARNING);
  const observe = metrics && authMetrics(metrics.registry, redis);

  // The data layer: users, secrets and security events in MySQL; sessions and login failures in Redis.
  const db = createDatabase(pool, settings.queryTimeoutMs);
  const users = userRepository(db);
  const secrets = secretRepository(db);
  const events = securityEventRepository(db);
  const log = securityLog(events);
  const { tokenScheme: scheme, keyPrefix, maxAgeSeconds, tokenTtl: ttlSeconds } = settings;
  const layout = { redis, scheme, keyPrefix, maxAgeSeconds, ttlSeconds };
  const sessions = sessionRepository({ ...layout, maxPerUser: settings.maxPerUser });
  const limiter = loginLimiter(redis, {
    maxFailures: settings.loginMaxFailures,
    accountMaxFailures: settings.accountMaxFailures,
    windowSeconds: settings.loginWindowSeconds,
    lockSeconds: settings.loginLockSeconds,
  });
  const { sliding, touchSeconds } = settings;
  const guard = sessionGuard({ ...layout, sliding, touchSeconds }, observe?.guard);
  // Each route reads its own body, so a refused one is still counted under the route.
  const middleware: RouteMiddleware = { json: jsonBodyParser(bodyLimitKb), guard };

  const app = createBaseApp({ logger, metrics, metricsRoute, exposedHeaders: EXPOSED_HEADERS });
  app.set('trust proxy', settings.trustProxy);
  const checks = { redis: () => redis.ping(), mysql: () => db.select('SELECT 1') };
  const notReady = STORE_UNAVAILABLE_MESSAGE;
  const warnings = deps.redisWarnings;
  app.use(healthRouter(checks, { envelope: messageBody, notReady, warnings }));
  const { login: onLogin, passwordCheck: onPasswordCheck } = observe ?? {};
  const logins = {
    users,
    sessions,
    opening: sessionOpening(sessions, settings.tokenTtl),
    limitedCheck: limitedChecks(limiter, onPasswordCheck),
    secrets,
    securityLog: log,
    twoFactor: twoFactorRepository(db),
    challenges: challenges(redis, settings.twoFactorChallengeSeconds),
    onLogin,
  };
  // One router per route table (http/routes.ts).
  app.use(routerOf(userRoutes, userHandlers({ ...logins, limiter, settings }), middleware));
  app.use(routerOf(twoFactorRoutes, twoFactorHandlers({ ...logins, scheme }), middleware));
  app.use(routerOf(sessionRoutes, sessionHandlers(sessions, log), middleware));
  app.use(
    routerOf(securityEventRoutes, securityEventHandlers({ events, users, secrets }), middleware),
  );
  app.use(docsRouter(openApiDocument));
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
