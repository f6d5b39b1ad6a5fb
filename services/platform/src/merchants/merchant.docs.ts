import { z } from 'zod';
import type { EndpointDoc } from '../http/endpoints.js';
import { dataEnvelope, errorEnvelope, msgEnvelope } from '../http/failure.js';
import { pathId } from '../http/fields.js';
import { pageHeaders } from '../http/list.js';
import {
  merchantAdded,
  merchantApproved,
  merchantList,
  merchantListParams,
  newMerchant,
} from './merchant.schema.js';

const tags = ['merchants'];

/** The merchant routes: merchant.routes.ts mounts each with its handler. */
export const merchantDocs = {
  list: {
    method: 'get',
    path: '/api/merchant/list',
    summary: 'Every merchant in id order, or one page of them',
    tags,
    query: merchantListParams,
    reply: merchantList,
    replyExample: {
      code: 200,
      message: '获取成功',
      data: [
        {
          id: 1,
          name: '张三家政',
          address: '北京市朝阳区1号',
          phone: '13800138000',
          status: 0,
          create_time: '2026-11-22T19:15:04.000Z',
        },
      ],
    },
    replyHeaders: pageHeaders,
    wholeList: true,
    failure: errorEnvelope('获取失败'),
    failureTexts: { 400: 'page must be a positive integer', 500: 'storage is unavailable' },
  },
  add: {
    method: 'post',
    path: '/api/merchant/add',
    summary: 'Add a merchant, under review (status 0)',
    tags,
    admin: true,
    body: newMerchant,
    bodyExample: { name: '张三家政', address: '北京市朝阳区1号', phone: '13800138000' },
    reply: merchantAdded,
    replyExample: { code: 200, message: '添加成功', data: { id: 1 } },
    failure: dataEnvelope('添加失败'),
    failureTexts: { 400: 'name is required; phone is required', 500: 'storage is unavailable' },
  },
  approve: {
    method: 'put',
    path: '/api/merchant/approve/:id',
    summary: 'Approve a merchant (status 1)',
    tags,
    admin: true,
    params: z.object({ id: pathId }),
    reply: merchantApproved,
    replyExample: { code: 200, msg: '商家审核通过!' },
    failure: msgEnvelope('商家不存在'),
    failureTexts: {
      400: 'id must be a positive integer',
      404: 'merchant 999 does not exist',
      500: 'storage is unavailable',
    },
  },
} satisfies Record<string, EndpointDoc>;
