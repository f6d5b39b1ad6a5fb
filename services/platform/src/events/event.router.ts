import { Router } from 'express';
import { onlyGet } from '../http/errors.js';
import type { RouterDeps } from '../http/router-deps.js';
import { type EventDeps, eventHandlers } from './event.handlers.js';

/** The feed and the stream (documented in event.docs.ts): administrator routes, as events carry phone numbers. */
export function eventRouter(deps: EventDeps, { adminOnly }: RouterDeps): Router {
  const { feed, stream } = eventHandlers(deps);
  const router = Router();
  router.route('/api/events').get(adminOnly, feed).all(onlyGet);
  router.route('/api/events/stream').get(adminOnly, stream).all(onlyGet);
  return router;
}
