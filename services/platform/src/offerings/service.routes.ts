import type { z } from 'zod';
import { dataEnvelope, errorEnvelope, msgEnvelope } from '../http/docs/failure-envelopes.js';
import { pageHeaders } from '../http/docs/reply-schemas.js';
import { idParams } from '../http/input.js';
import { LIST_FAILED, LISTED, notPositive, STORAGE_UNAVAILABLE } from '../http/messages.js';
import type { Route } from '../http/routes.js';
import type { serviceHandlers } from './service.handlers.js';
import {
  SERVICE_ADD_FAILED,
  SERVICE_ADDED,
  SERVICE_NOT_FOUND,
  SERVICE_PUBLISHED,
  SERVICE_UNPUBLISHED,
} from './service.messages.js';
import {
  BAD_PRICE,
  newService,
  serviceAdded,
  serviceList,
  serviceListQuery,
  servicePublished,
  serviceUnpublished,
} from './service.schema.js';

const listFailure = errorEnvelope(LIST_FAILED);
const addFailure = dataEnvelope(SERVICE_ADD_FAILED);
const shelveFailure = msgEnvelope(SERVICE_NOT_FOUND);
const tags = ['services'];

type ServiceRoute = Route<ReturnType<typeof serviceHandlers>>;

/** Publish (status 1) and unpublish (status 0) differ in path, status and texts only. */
const shelveRoute = (
  path: string,
  status: 0 | 1,
  summary: string,
  reply: z.ZodType,
  msg: string,
): ServiceRoute => ({
  method: 'put',
  path,
  handler: (h) => h.shelve(status, msg),
  summary,
  tags,
  admin: true,
  params: idParams,
  reply,
  replyExample: { code: 200, msg },
  failure: shelveFailure,
  failureTexts: {
    400: notPositive('id'),
    404: 'service 999 does not exist',
    500: STORAGE_UNAVAILABLE,
  },
});

/** The service routes: method, path, middleware, handler, envelope and document. */
export const serviceRoutes: ServiceRoute[] = [
  {
    method: 'get',
    path: '/api/service/list',
    handler: (h) => h.list,
    summary: 'Every service in id order, off-shelf ones included, with its merchant name',
    tags,
    query: serviceListQuery,
    reply: serviceList,
    replyExample: {
      code: 200,
      message: LISTED,
      data: [
        {
          id: 1,
          merchant_id: 1,
          name: '日常保洁',
          price: '150.00',
          category: '保洁',
          image_url: 'https://img.example/clean.png',
          stock: 5,
          status: 0,
          create_time: '2026-11-22T19:15:04.000Z',
          merchant_name: '张三家政',
        },
      ],
    },
    replyHeaders: pageHeaders,
    wholeList: true,
    failure: listFailure,
    failureTexts: {
      400: 'pageSize must be an integer from 1 to 100',
      500: STORAGE_UNAVAILABLE,
    },
  },
  {
    method: 'post',
    path: '/api/service/add',
    handler: (h) => h.add,
    summary: 'Add a service for a merchant, off the shelf (status 0)',
    tags,
    admin: true,
    body: newService,
    bodyExample: {
      merchant_id: 1,
      name: '日常保洁',
      price: 150,
      category: '保洁',
      image_url: 'https://img.example/clean.png',
      stock: 5,
    },
    idempotent: true,
    reply: serviceAdded,
    replyExample: { code: 200, message: SERVICE_ADDED, data: { id: 1 } },
    failure: addFailure,
    failureTexts: {
      400: BAD_PRICE,
      500: 'merchant 42 does not exist',
    },
  },
  shelveRoute(
    '/api/service/publish/:id',
    1,
    'Put a service on the shelf (status 1)',
    servicePublished,
    SERVICE_PUBLISHED,
  ),
  shelveRoute(
    '/api/service/unpublish/:id',
    0,
    'Take a service off the shelf (status 0)',
    serviceUnpublished,
    SERVICE_UNPUBLISHED,
  ),
];
