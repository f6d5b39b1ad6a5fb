import { Router } from 'express';
import { onlyGet, onlyPost, onlyPut } from '../http/errors.js';
import type { RouterDeps } from '../http/router-deps.js';
import { merchantHandlers } from './merchant.handlers.js';
import type { MerchantRepository } from './merchant.repository.js';

/** The merchant routes: method, path, middleware, handler (documented in merchant.docs.ts). */
export function merchantRouter(merchants: MerchantRepository, deps: RouterDeps): Router {
  const { list, add, approve } = merchantHandlers(merchants, deps);
  const { json, adminOnly } = deps;
  const router = Router();
  router.route('/api/merchant/list').get(json, list).all(onlyGet);
  router.route('/api/merchant/add').post(adminOnly, json, add).all(onlyPost);
  router.route('/api/merchant/approve/:id').put(adminOnly, json, approve).all(onlyPut);
  return router;
}
