import type { Slots } from '../db/slots.js';
import type { Endpoint } from '../http/endpoints.js';
import { orderDocs } from './order.docs.js';
import { orderHandlers } from './order.handlers.js';
import type { OrderRepository } from './order.repository.js';

/** Each route is its document (method, path, schemas, failure envelope) and its handler. */
export function orderRoutes(orders: OrderRepository, wholeLists: Slots): Endpoint[] {
  const handle = orderHandlers(orders, wholeLists);
  return [
    { ...orderDocs.list, handler: handle.list },
    { ...orderDocs.adminList, handler: handle.list },
    { ...orderDocs.create, handler: handle.create },
    { ...orderDocs.add, handler: handle.create },
    { ...orderDocs.adminAdd, handler: handle.create },
    { ...orderDocs.complete, handler: handle.complete },
  ];
}
