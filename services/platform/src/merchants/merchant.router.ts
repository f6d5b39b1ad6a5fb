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
  MERCHANT_ADD_FAILED,
  MERCHANT_ADDED,
  MERCHANT_APPROVED,
  MERCHANT_NOT_FOUND,
} from './merchant.messages.js';
import type { MerchantRepository } from './merchant.repository.js';
import {
  merchantAdded,
  merchantApproved,
  merchantList,
  merchantListParams,
  merchantListQuery,
  newMerchant,
} from './merchant.schema.js';

const listFailure = errorEnvelope(LIST_FAILED);
const addFailure = dataEnvelope(MERCHANT_ADD_FAILED);
const approveFailure = msgEnvelope(MERCHANT_NOT_FOUND);
const tags = ['merchants'];

/** Each route as the API document shows it. */
export const merchantDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/merchant/list',
    summary: 'Every merchant in id order, or one page of them',
    tags,
    query: merchantListParams,
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
    failureTexts: { 400: 'page must be a positive integer', 500: 'storage is unavailable' },
  },
  {
    method: 'post',
    path: '/api/merchant/add',
    summary: 'Add a merchant, under review (status 0)',
    tags,
    admin: true,
    body: newMerchant,
    bodyExample: { name: '张三家政', address: '北京市朝阳区1号', phone: '13800138000' },
    idempotent: true,
    reply: merchantAdded,
    replyExample: { code: 200, message: MERCHANT_ADDED, data: { id: 1 } },
    failure: addFailure,
    failureTexts: { 400: 'name is required; phone is required', 500: 'storage is unavailable' },
  },
  {
    method: 'put',
    path: '/api/merchant/approve/:id',
    summary: 'Approve a merchant (status 1)',
    tags,
    admin: true,
    params: z.object({ id: pathId }),
    reply: merchantApproved,
    replyExample: { code: 200, msg: MERCHANT_APPROVED },
    failure: approveFailure,
    failureTexts: {
      400: 'id must be a positive integer',
      404: 'merchant 999 does not exist',
      500: 'storage is unavailable',
    },
  },
];

export function merchantRouter(
  merchants: MerchantRepository,
  { wholeLists, json, adminOnly, createOnce }: RouterDeps,
): Router {
  async function list(req: Request, res: Response) {
    const page = parseInput(merchantListQuery, req.query);
    await sendList(res, merchants.list(), wholeLists, page);
  }

  async function add(req: Request, res: Response) {
    const merchant = parseInput(newMerchant, jsonBody(req));
    const id = await createOnce(req, res, 'merchant', merchant, merchants.insert);
    res.json(messageBody(200, MERCHANT_ADDED, { id }));
  }

  async function approve(req: Request, res: Response) {
    await merchants.approve(parseInput(pathId, req.params.id));
    res.json(msgBody(200, MERCHANT_APPROVED));
  }

  const router = Router();
  router.route('/api/merchant/list').get(json, list, failsIn(listFailure)).all(onlyGet);
  router.route('/api/merchant/add').post(adminOnly, json, add, failsIn(addFailure)).all(onlyPost);
  router
    .route('/api/merchant/approve/:id')
    .put(adminOnly, json, approve, failsIn(approveFailure))
    .all(onlyPut);
  return router;
}
