import { z } from 'zod';
import type { EndpointDoc } from '../http/endpoints.js';
import { errorEnvelope, msgEnvelope } from '../http/failure.js';
import { pathId } from '../http/fields.js';
import { pageHeaders } from '../http/list.js';
import {
  newOrder,
  orderCompleted,
  orderCreated,
  orderList,
  orderListParams,
} from './order.schema.js';

const tags = ['orders'];

const list = (path: string, summary: string) =>
  ({
    method: 'get',
    path,
    summary,
    tags,
    admin: true,
    query: orderListParams,
    reply: orderList,
    replyExample: {
      code: 200,
      message: '获取成功',
      data: [
        {
          id: 1,
          service_id: 1,
          user_name: '李四',
          user_phone: '13912345678',
          create_time: '2026-11-22T19:15:04.000Z',
          status: 0,
          server_name: '日常保洁',
          service_name: '日常保洁',
          price: '150.00',
          merchant_name: '张三家政',
        },
      ],
    },
    replyHeaders: pageHeaders,
    wholeList: true,
    failure: errorEnvelope('获取失败'),
    failureTexts: { 400: 'status must be 0, 1 or 2', 500: 'storage is unavailable' },
  }) satisfies EndpointDoc;

const create = (path: string, summary: string) =>
  ({
    method: 'post',
    path,
    summary,
    tags,
    body: newOrder,
    bodyExample: { service_id: 1, user_name: '李四', user_phone: '13912345678' },
    reply: orderCreated,
    replyExample: { code: 200, message: '创建定单成功', data: { id: 1 } },
    failure: errorEnvelope('创建定单失败'),
    failureTexts: {
      400: 'request body is not valid JSON',
      415: 'Content-Type must be application/json',
      500: 'service 42 does not exist',
    },
  }) satisfies EndpointDoc;

/**
 * The order routes: order.routes.ts mounts each with its handler. The
 * administrator client calls the paths without /api, and /add for create.
 */
export const orderDocs = {
  list: list('/api/order/list', 'Orders, newest first, optionally of one status'),
  adminList: list('/order/list', 'The same as GET /api/order/list, for the administrator client'),
  create: create('/api/order/create', 'Create an order (status 0); the stock stays'),
  add: create('/api/order/add', 'The same as POST /api/order/create, for the existing clients'),
  adminAdd: create(
    '/order/add',
    'The same as POST /api/order/create, for the administrator client',
  ),
  complete: {
    method: 'put',
    path: '/api/order/complete/:id',
    summary: 'Complete an order (status 1); completing a completed order answers 200',
    tags,
    admin: true,
    params: z.object({ id: pathId }),
    reply: orderCompleted,
    replyExample: { code: 200, msg: '订单已完成!' },
    failure: msgEnvelope('订单不存在'),
    failureTexts: {
      400: 'id must be a positive integer',
      404: 'order 999 does not exist',
      500: 'storage is unavailable',
    },
  },
} satisfies Record<string, EndpointDoc>;
