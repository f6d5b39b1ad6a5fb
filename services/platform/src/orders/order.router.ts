import { Router } from 'express';
import { onlyGet, onlyPost, onlyPut } from '../http/errors.js';
import type { RouterDeps } from '../http/router-deps.js';
import { orderHandlers } from './order.handlers.js';
import type { OrderRepository } from './order.repository.js';

/**
 * The order routes: method, path, middleware, handler (documented in
 * order.docs.ts). The administrator client calls the paths without /api, and
 * /add for create.
 */
export function orderRouter(orders: OrderRepository, deps: RouterDeps): Router {
  const { list, create, complete } = orderHandlers(orders, deps);
  const { json, adminOnly } = deps;
  const router = Router();
  // Order create first: the customer apps' busiest route meets no other path on its way.
  router.route('/api/order/create').post(json, create).all(onlyPost);
  router.route('/api/order/add').post(json, create).all(onlyPost);
  router.route('/order/add').post(json, create).all(onlyPost);
  router.route('/api/order/list').get(adminOnly, json, list).all(onlyGet);
  router.route('/order/list').get(adminOnly, json, list).all(onlyGet);
  router.route('/api/order/complete/:id').put(adminOnly, json, complete).all(onlyPut);
  return router;
}
