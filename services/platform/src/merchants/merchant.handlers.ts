import { messageBody } from '@svc/common';
import type { Request, Response } from 'express';
import { msgBody } from '../http/envelopes.js';
import { jsonBody, parseInput, pathId, requestKey } from '../http/input.js';
import { sendList } from '../http/lists/send-list.js';
import type { RouterDeps } from '../http/router-deps.js';
import { IDEMPOTENT_REPLAYED } from '../idempotency/idempotency.messages.js';
import { MERCHANT_ADDED, MERCHANT_APPROVED } from './merchant.messages.js';
import type { MerchantRepository } from './merchant.repository.js';
import { merchantListQuery, newMerchant } from './merchant.schema.js';

/** Each route's work: parse the input, call the repository, answer; a failure is thrown. */
export function merchantHandlers(merchants: MerchantRepository, { wholeLists }: RouterDeps) {
  return {
    async list(req: Request, res: Response) {
      const page = parseInput(merchantListQuery, req.query);
      await sendList(res, merchants.list(), wholeLists, page);
    },

    async add(req: Request, res: Response) {
      const merchant = parseInput(newMerchant, jsonBody(req));
      const { id, replayed } = await merchants.create(merchant, requestKey(req, 'merchant'));
      if (replayed) res.set(IDEMPOTENT_REPLAYED, 'true');
      res.json(messageBody(200, MERCHANT_ADDED, { id }));
    },

    async approve(req: Request, res: Response) {
      await merchants.approve(parseInput(pathId, req.params.id));
      res.json(msgBody(200, MERCHANT_APPROVED));
    },
  };
}
