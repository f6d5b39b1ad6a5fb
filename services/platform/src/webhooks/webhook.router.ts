import { Router } from 'express';
import { methodNotAllowed } from '../http/errors.js';
import type { RouterDeps } from '../http/router-deps.js';
import { type WebhookDeps, webhookHandlers } from './webhook.handlers.js';

/** The webhook routes (documented in webhook.docs.ts), all administrator routes. */
export function webhookRouter(deps: WebhookDeps, { json, adminOnly }: RouterDeps): Router {
  const { add, list, remove, deliveries, retry } = webhookHandlers(deps);
  const router = Router();
  router
    .route('/api/webhooks')
    .post(adminOnly, json, add)
    .get(adminOnly, list)
    .all(methodNotAllowed('GET, HEAD, POST'));
  router.route('/api/webhooks/:id').delete(adminOnly, remove).all(methodNotAllowed('DELETE'));
  router
    .route('/api/webhooks/:id/deliveries')
    .get(adminOnly, deliveries)
    .all(methodNotAllowed('GET, HEAD'));
  router.route('/api/webhooks/:id/retry').post(adminOnly, retry).all(methodNotAllowed('POST'));
  return router;
}
