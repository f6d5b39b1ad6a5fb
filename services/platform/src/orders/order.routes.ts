import type { Router } from 'express';
import { type Endpoint, endpointRouter } from '../http/endpoints.js';
import { errorEnvelope } from '../http/failure.js';
import { orderHandlers } from './order.handlers.js';
import type { OrderRepository } from './order.repository.js';

/** The administrator client calls the paths without /api, and /add for create. */
const LIST_PATHS = ['/api/order/list', '/order/list'];
const CREATE_PATHS = ['/api/order/create', '/api/order/add', '/order/add'];

export function orderRoutes(orders: OrderRepository): Router {
  const handle = orderHandlers(orders);
  const list = LIST_PATHS.map(
    (path): Endpoint => ({
      method: 'get',
      path,
      failure: errorEnvelope('获取失败'),
      handler: handle.list,
    }),
  );
  const create = CREATE_PATHS.map(
    (path): Endpoint => ({
      method: 'post',
      path,
      failure: errorEnvelope('创建定单失败'),
      handler: handle.create,
    }),
  );
  return endpointRouter([...list, ...create]);
}
