import type { RequestHandler, Router } from 'express';
import { endpointRouter } from '../http/endpoints.js';
import { orderDocs } from './order.docs.js';
import { orderHandlers } from './order.handlers.js';
import type { OrderRepository } from './order.repository.js';

/**
 * Each route is its document (method, path, schemas, failure envelope) and a
 * handler; the administrator routes among them run `adminGuard` first.
 */
export function orderRoutes(orders: OrderRepository, adminGuard?: RequestHandler): Router {
  const handle = orderHandlers(orders);
  return endpointRouter(
    [
      { ...orderDocs.list, handler: handle.list },
      { ...orderDocs.adminList, handler: handle.list },
      { ...orderDocs.create, handler: handle.create },
      { ...orderDocs.add, handler: handle.create },
      { ...orderDocs.adminAdd, handler: handle.create },
    ],
    { adminGuard },
  );
}
