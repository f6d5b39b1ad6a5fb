import { dataEnvelope, errorEnvelope, msgEnvelope } from '../http/docs/failure-envelopes.js';
import { pageHeaders } from '../http/docs/reply-schemas.js';
import { idParams } from '../http/input.js';
import { LIST_FAILED, LISTED, notPositive, STORAGE_UNAVAILABLE } from '../http/messages.js';
import type { Route } from '../http/routes.js';
import type { merchantHandlers } from './merchant.handlers.js';
import {
  MERCHANT_ADD_FAILED,
  MERCHANT_ADDED,
  MERCHANT_APPROVED,
  MERCHANT_NOT_FOUND,
} from './merchant.messages.js';
import {
  merchantAdded,
  merchantApproved,
  merchantList,
  merchantListQuery,
  newMerchant,
} from './merchant.schema.js';

const listFailure = errorEnvelope(LIST_FAILED);
const addFailure = dataEnvelope(MERCHANT_ADD_FAILED);
const approveFailure = msgEnvelope(MERCHANT_NOT_FOUND);
const tags = ['merchants'];

/** The merchant routes: method, path, middleware, handler, envelope and document. */
export const merchantRoutes: Route<ReturnType<typeof merchantHandlers>>[] = [
  {
    method: 'get',
    path: '/api/merchant/list',
    handler: (h) => h.list,
    summary: 'Every merchant in id order, or one page of them',
    tags,
    query: merchantListQuery,
    reply: merchantList,
    replyExample: {
      code: 200,
      message: LISTED,
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
    failure: listFailure,
    failureTexts: { 400: notPositive('page'), 500: STORAGE_UNAVAILABLE },
  },
  {
    method: 'post',
    path: '/api/merchant/add',
    handler: (h) => h.add,
    summary: 'Add a merchant, under review (status 0)',
    tags,
    admin: true,
    body: newMerchant,
    bodyExample: { name: '张三家政', address: '北京市朝阳区1号', phone: '13800138000' },
    idempotent: true,
    reply: merchantAdded,
    replyExample: { code: 200, message: MERCHANT_ADDED, data: { id: 1 } },
    failure: addFailure,
    failureTexts: { 400: 'name is required; phone is required', 500: STORAGE_UNAVAILABLE },
  },
  {
    method: 'put',
    path: '/api/merchant/approve/:id',
    handler: (h) => h.approve,
    summary: 'Approve a merchant (status 1)',
    tags,
    admin: true,
    params: idParams,
    reply: merchantApproved,
    replyExample: { code: 200, msg: MERCHANT_APPROVED },
    failure: approveFailure,
    failureTexts: {
      400: notPositive('id'),
      404: 'merchant 999 does not exist',
      500: STORAGE_UNAVAILABLE,
    },
  },
];
