import { Router } from 'express';
import { onlyGet, onlyPost, onlyPut } from '../http/errors.js';
import type { RouterDeps } from '../http/router-deps.js';
import { serviceHandlers } from './service.handlers.js';
import { SERVICE_PUBLISHED, SERVICE_UNPUBLISHED } from './service.messages.js';
import type { ServiceRepository } from './service.repository.js';

/** The service routes: method, path, middleware, handler (documented in service.docs.ts). */
export function serviceRouter(services: ServiceRepository, deps: RouterDeps): Router {
  const { list, add, shelve } = serviceHandlers(services, deps);
  const { json, adminOnly } = deps;
  const router = Router();
  router.route('/api/service/list').get(json, list).all(onlyGet);
  router.route('/api/service/add').post(adminOnly, json, add).all(onlyPost);
  router
    .route('/api/service/publish/:id')
    .put(adminOnly, json, shelve(1, SERVICE_PUBLISHED))
    .all(onlyPut);
  router
    .route('/api/service/unpublish/:id')
    .put(adminOnly, json, shelve(0, SERVICE_UNPUBLISHED))
    .all(onlyPut);
  return router;
}
