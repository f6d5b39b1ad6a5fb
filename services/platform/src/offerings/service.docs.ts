import { z } from 'zod';
import type { EndpointDoc } from '../http/endpoints.js';
import type { changedReply } from '../http/envelopes.js';
import { dataEnvelope, errorEnvelope, msgEnvelope } from '../http/failure.js';
import { pathId } from '../http/fields.js';
import { pageHeaders } from '../http/list.js';
import {
  newService,
  serviceAdded,
  serviceList,
  serviceListParams,
  servicePublished,
  serviceUnpublished,
} from './service.schema.js';

const tags = ['services'];

const shelve = (path: string, summary: string, reply: ReturnType<typeof changedReply>) =>
  ({
    method: 'put',
    path,
    summary,
    tags,
    admin: true,
    params: z.object({ id: pathId }),
    reply,
    replyExample: { code: 200, msg: reply.shape.msg.value },
    failure: msgEnvelope('服务不存在'),
    failureTexts: {
      400: 'id must be a positive integer',
      404: 'service 999 does not exist',
      500: 'storage is unavailable',
    },
  }) satisfies EndpointDoc;

/** The service routes: service.routes.ts mounts each with its handler. */
export const serviceDocs = {
  list: {
    method: 'get',
    path: '/api/service/list',
    summary: 'Every service in id order, off-shelf ones included, with its merchant name',
    tags,
    query: serviceListParams,
    reply: serviceList,
    replyExample: {
      code: 200,
      message: '获取成功',
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
    failure: errorEnvelope('获取失败'),
    failureTexts: {
      400: 'pageSize must be an integer from 1 to 100',
      500: 'storage is unavailable',
    },
  },
  add: {
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
    reply: serviceAdded,
    replyExample: { code: 200, message: '新增服务成功', data: { id: 1 } },
    failure: dataEnvelope('新增服务失败'),
    failureTexts: {
      400: 'price must be a non-negative number with at most 2 decimals',
      500: 'merchant 42 does not exist',
    },
  },
  publish: shelve(
    '/api/service/publish/:id',
    'Put a service on the shelf (status 1)',
    servicePublished,
  ),
  unpublish: shelve(
    '/api/service/unpublish/:id',
    'Take a service off the shelf (status 0)',
    serviceUnpublished,
  ),
} satisfies Record<string, EndpointDoc>;
