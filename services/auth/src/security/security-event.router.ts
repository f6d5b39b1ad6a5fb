import { Router } from 'express';
import type { RouterDeps } from '../http/router-deps.js';
import { type SecurityEventDeps, securityEventHandlers } from './security-event.handlers.js';

/** A user's own security log: method, path, middleware, handler (documented in security-event.docs.ts). */
export function securityEventRouter(data: SecurityEventDeps, { json, guard }: RouterDeps): Router {
  const handlers = securityEventHandlers(data);
  const router = Router();
  router.get('/api/user/security-events', json, guard, handlers.list);
  return router;
}
