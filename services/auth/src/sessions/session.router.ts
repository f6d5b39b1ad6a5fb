import { Router } from 'express';
import type { RouterDeps } from '../http/router-deps.js';
import type { SessionHandlers } from './session.handlers.js';

/** A user's own sessions; session.docs.ts describes each route. */
export function sessionRouter(handlers: SessionHandlers, { json, guard }: RouterDeps): Router {
  const router = Router();
  router.get('/api/user/sessions', json, guard, handlers.list);
  router.delete('/api/user/sessions', json, guard, handlers.endOthers);
  router.delete('/api/user/sessions/:id', json, guard, handlers.end);
  router.post('/api/user/logout-all', json, guard, handlers.endAll);
  return router;
}
