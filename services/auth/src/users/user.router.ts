import { AppError, type Pool, type RedisClient, StoreUnavailableError } from '@svc/common';
import { createGuard, createUserSessions, rejection, SessionStore } from '@svc/session-guard';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { AuthObservers } from '../auth-metrics.js';
import type { AuthSettings } from '../config.js';
import { LoginLimiter } from './login-limiter.js';
import { createSessionHandlers } from './session.handlers.js';
import { sessionRepository } from './session.repository.js';
import { createUserHandlers } from './user.handlers.js';
import { userRepository } from './user.repository.js';

interface UserRouterDeps {
  pool: Pool;
  redis: RedisClient;
  settings: AuthSettings;
  /** Reads a JSON body; runs first on every route, as a refused body answers before the guard. */
  json: RequestHandler;
  observe?: AuthObservers;
}

/** The user routes; user.docs.ts describes each for the OpenAPI document. */
export function userRouter({ pool, redis, settings, json, observe }: UserRouterDeps): Router {
  const {
    tokenScheme: scheme,
    keyPrefix,
    sliding,
    tokenTtl,
    touchSeconds,
    maxAgeSeconds,
  } = settings;
  const layout = { redis, scheme, keyPrefix, maxAgeSeconds };
  const guard = createGuard<Request, Response>({
    ...layout,
    sliding,
    ttlSeconds: tokenTtl,
    touchSeconds,
    // Refusals reach the app's error handler, which answers every failure.
    onReject: (_req, _res, next, reason, err) =>
      next(
        reason === 'unavailable'
          ? new StoreUnavailableError('redis', err)
          : new AppError(401, rejection(reason).body.message),
      ),
    onOutcome: observe?.guard,
  });
  const sessions = sessionRepository(new SessionStore(layout), createUserSessions(layout));
  const handlers = createUserHandlers({
    users: userRepository(pool, settings.queryTimeoutMs),
    sessions,
    limiter: new LoginLimiter(redis, {
      maxFailures: settings.loginMaxFailures,
      windowSeconds: settings.loginWindowSeconds,
      lockSeconds: settings.loginLockSeconds,
    }),
    settings,
    onLogin: observe?.login,
  });

  const router = Router();
  router.post('/api/user/register', json, handlers.register);
  router.post('/api/user/login', json, handlers.login);
  router.get('/api/user/status', json, handlers.status);
  router.get('/api/user/me', json, guard, handlers.me);
  router.get('/api/user/verify', json, guard, handlers.verify);
  router.post('/api/user/logout', json, guard, handlers.logout);
  router.post('/api/user/change-password', json, guard, handlers.changePassword);
  const own = createSessionHandlers(sessions);
  router.get('/api/user/sessions', json, guard, own.list);
  router.delete('/api/user/sessions', json, guard, own.endOthers);
  router.delete('/api/user/sessions/:id', json, guard, own.end);
  router.post('/api/user/logout-all', json, guard, own.endAll);
  return router;
}
