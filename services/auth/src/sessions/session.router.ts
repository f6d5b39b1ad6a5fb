import { Router } from 'express';
import type { RouterDeps } from '../http/router-deps.js';
import type { SecurityLog } from '../security/security-log.js';
import { sessionHandlers } from './session.handlers.js';
import type { SessionRepository } from './session.repository.js';

/** A user's own sessions: method, path, middleware, handler (documented in session.docs.ts). */
export function sessionRouter(
  sessions: SessionRepository,
  securityLog: SecurityLog,
  { json, guard }: RouterDeps,
): Router {
  const handlers = sessionHandlers(sessions, securityLog);
  const router = Router();
  router.get('/api/user/sessions', json, guard, handlers.list);
  router.delete('/api/user/sessions', json, guard, handlers.endOthers);
  router.delete('/api/user/sessions/:id', json, guard, handlers.end);
  router.post('/api/user/logout-all', json, guard, handlers.endAll);
  return router;
}
