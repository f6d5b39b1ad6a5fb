import { z } from 'zod';
import { errorEnvelope, msgEnvelope } from '../http/docs/failure-envelopes.js';
import { pageHeaders } from '../http/docs/reply-schemas.js';
import { idParams } from '../http/input.js';
import {
  BODY_FAULTS,
  LIST_FAILED,
  LISTED,
  NOT_JSON_TYPE,
  notPositive,
  STORAGE_UNAVAILABLE,
} from '../http/messages.js';
import type { Route } from '../http/routes.js';
import type { orderHandlers } from './order.handlers.js';
import {
  BAD_ORDER_STATUS,
  ORDER_COMPLETED,
  ORDER_CREATE_FAILED,
  ORDER_CREATED,
  ORDER_NOT_FOUND,
} from './order.messages.js';
import {
  newOrder,
  orderCompleted,
  orderCreated,
  orderList,
  orderListQuery,
} from './order.schema.js';

const listFailure = errorEnvelope(LIST_FAILED);
const createFailure = errorEnvelope(ORDER_CREATE_FAILED);
const completeFailure = msgEnvelope(ORDER_NOT_FOUND);
const tags = ['orders'];

/** An order as the order list answers it (and order events carry it). */
export const exampleOrder = {
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
};

/** The administrator client calls the paths without /api, and /add for create. */
const ADMIN_CLIENT = 'the administrator client';

/** The order routes: method, path (and the older clients' paths), middleware, handler, envelope and document. */
export const orderRoutes: Route<ReturnType<typeof orderHandlers>>[] = [
  {
    method: 'get',
    path: '/api/order/list',
    aliases: { '/order/list': ADMIN_CLIENT },
    handler: (h) => h.list,
    summary: 'Orders, newest first, optionally of one status',
    tags,
    admin: true,
    query: orderListQuery,
    reply: orderList,
    replyExample: {
      code: 200,
      message: LISTED,
      data: [exampleOrder],
    },
    replyHeaders: {
      ...pageHeaders,
      'X-Next-Cursor': {
        description:
          'with pageSize and no page, or with cursor, unless this is the last page: the cursor of the next page (send it as `cursor`); pages reached by a cursor carry no X-Total-Count',
        schema: z.string().regex(/^[A-Za-z0-9_-]+$/),
        required: false,
      },
      Link: {
        description: 'with X-Next-Cursor: `<the same list with cursor=…>; rel="next"` (RFC 8288)',
        schema: z.string(),
        required: false,
      },
    },
    wholeList: true,
    failure: listFailure,
    failureTexts: { 400: BAD_ORDER_STATUS, 500: STORAGE_UNAVAILABLE },
  },
  {
    method: 'post',
    path: '/api/order/create',
    aliases: { '/api/order/add': 'the existing clients', '/order/add': ADMIN_CLIENT },
    handler: (h) => h.create,
    summary: 'Create an order (status 0); the stock stays',
    tags,
    body: newOrder,
    bodyExample: { service_id: 1, user_name: '李四', user_phone: '13912345678' },
    idempotent: true,
    reply: orderCreated,
    replyExample: { code: 200, message: ORDER_CREATED, data: { id: 1 } },
    failure: createFailure,
    failureTexts: {
      400: BODY_FAULTS.malformed,
      415: NOT_JSON_TYPE,
      500: 'service 42 does not exist',
    },
  },
  {
    method: 'put',
    path: '/api/order/complete/:id',
    handler: (h) => h.complete,
    summary: 'Complete an order (status 1); completing a completed order answers 200',
    tags,
    admin: true,
    params: idParams,
    reply: orderCompleted,
    replyExample: { code: 200, msg: ORDER_COMPLETED },
    failure: completeFailure,
    failureTexts: {
      400: notPositive('id'),
      404: 'order 999 does not exist',
      500: STORAGE_UNAVAILABLE,
    },
  },
];
