import { Router } from 'express';
import type { RouterDeps } from '../http/router-deps.js';
import type { UserHandlers } from './user.handlers.js';

/** The user routes; user.docs.ts describes each for the OpenAPI document. */
export function userRouter(handlers: UserHandlers, { json, guard }: RouterDeps): Router {
  const router = Router();
  router.post('/api/user/register', json, handlers.register);
  router.post('/api/user/login', json, handlers.login);
  router.get('/api/user/status', json, handlers.status);
  router.get('/api/user/me', json, guard, handlers.me);
  router.get('/api/user/verify', json, guard, handlers.verify);
  router.post('/api/user/logout', json, guard, handlers.logout);
  router.post('/api/user/change-password', json, guard, handlers.changePassword);
  return router;
}
