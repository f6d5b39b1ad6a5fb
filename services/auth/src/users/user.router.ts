import { AppError, type Pool, type RedisClient, StoreUnavailableError } from '@svc/common';
import { createGuard, createUserSessions, rejection, SessionStore } from '@svc/session-guard';
import { type Request, type Response, Router } from 'express';
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
  observe?: AuthObservers;
}

/** The user routes; user.docs.ts describes each for the OpenAPI document. */
export function userRouter({ pool, redis, settings, observe }: UserRouterDeps): Router {
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
  router.post('/api/user/register', handlers.register);
  router.post('/api/user/login', handlers.login);
  router.get('/api/user/status', handlers.status);
  router.get('/api/user/me', guard, handlers.me);
  router.get('/api/user/verify', guard, handlers.verify);
  router.post('/api/user/logout', guard, handlers.logout);
  router.post('/api/user/change-password', guard, handlers.changePassword);
  const own = createSessionHandlers(sessions);
  router.get('/api/user/sessions', guard, own.list);
  router.delete('/api/user/sessions', guard, own.endOthers);
  router.delete('/api/user/sessions/:id', guard, own.end);
  router.post('/api/user/logout-all', guard, own.endAll);
  return router;
}
