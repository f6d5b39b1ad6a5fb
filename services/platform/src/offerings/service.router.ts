import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import {
  dataEnvelope,
  errorEnvelope,
  messageBody,
  msgBody,
  msgEnvelope,
} from '../http/envelopes.js';
import { failsIn, onlyGet, onlyPost, onlyPut } from '../http/errors.js';
import { pathId } from '../http/fields.js';
import { jsonBody, parseInput } from '../http/input.js';
import { pageHeaders, sendList } from '../http/list.js';
import { LIST_FAILED, LISTED } from '../http/messages.js';
import type { RouteDoc } from '../http/route-doc.js';
import type { RouterDeps } from '../http/router-deps.js';
import {
  SERVICE_ADD_FAILED,
  SERVICE_ADDED,
  SERVICE_NOT_FOUND,
  SERVICE_PUBLISHED,
  SERVICE_UNPUBLISHED,
} from './service.messages.js';
import type { ServiceRepository } from './service.repository.js';
import {
  newService,
  serviceAdded,
  serviceList,
  serviceListParams,
  serviceListQuery,
  servicePublished,
  serviceUnpublished,
} from './service.schema.js';

const listFailure = errorEnvelope(LIST_FAILED);
const addFailure = dataEnvelope(SERVICE_ADD_FAILED);
const shelveFailure = msgEnvelope(SERVICE_NOT_FOUND);
const tags = ['services'];

const shelveDoc = (path: string, summary: string, reply: z.ZodType, msg: string): RouteDoc => ({
  method: 'put',
  path,
  summary,
  tags,
  admin: true,
  params: z.object({ id: pathId }),
  reply,
  replyExample: { code: 200, msg },
  failure: shelveFailure,
  failureTexts: {
    400: 'id must be a positive integer',
    404: 'service 999 does not exist',
    500: 'storage is unavailable',
  },
});

/** Each route as the API document shows it. */
export const serviceDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/service/list',
    summary: 'Every service in id order, off-shelf ones included, with its merchant name',
    tags,
    query: serviceListParams,
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
      500: 'storage is unavailable',
    },
  },
  {
    method: 'post',
    path: '/api/service/add',
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
      400: 'price must be a non-negative number with at most 2 decimals',
      500: 'merchant 42 does not exist',
    },
  },
  shelveDoc(
    '/api/service/publish/:id',
    'Put a service on the shelf (status 1)',
    servicePublished,
    SERVICE_PUBLISHED,
  ),
  shelveDoc(
    '/api/service/unpublish/:id',
    'Take a service off the shelf (status 0)',
    serviceUnpublished,
    SERVICE_UNPUBLISHED,
  ),
];

export function serviceRouter(
  services: ServiceRepository,
  { wholeLists, json, adminOnly, createOnce }: RouterDeps,
): Router {
  async function list(req: Request, res: Response) {
    const { category, page } = parseInput(serviceListQuery, req.query);
    await sendList(res, services.list(category), wholeLists, page);
  }

  async function add(req: Request, res: Response) {
    const service = parseInput(newService, jsonBody(req));
    const id = await createOnce(req, res, 'service', service, services.insert);
    res.json(messageBody(200, SERVICE_ADDED, { id }));
  }

  /** Publish (status 1) or unpublish (status 0). */
  const shelve = (status: 0 | 1, done: string) => async (req: Request, res: Response) => {
    await services.setStatus(parseInput(pathId, req.params.id), status);
    res.json(msgBody(200, done));
  };

  const router = Router();
  router.route('/api/service/list').get(json, list, failsIn(listFailure)).all(onlyGet);
  router.route('/api/service/add').post(adminOnly, json, add, failsIn(addFailure)).all(onlyPost);
  router
    .route('/api/service/publish/:id')
    .put(adminOnly, json, shelve(1, SERVICE_PUBLISHED), failsIn(shelveFailure))
    .all(onlyPut);
  router
    .route('/api/service/unpublish/:id')
    .put(adminOnly, json, shelve(0, SERVICE_UNPUBLISHED), failsIn(shelveFailure))
    .all(onlyPut);
  return router;
}
