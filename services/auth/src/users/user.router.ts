import { Router } from 'express';
import type { RouterDeps } from '../http/router-deps.js';
import { type UserHandlerDeps, userHandlers } from './user.handlers.js';

/** The user routes: method, path, middleware, handler (documented in user.docs.ts). */
export function userRouter(data: UserHandlerDeps, { json, guard }: RouterDeps): Router {
  const handlers = userHandlers(data);
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
