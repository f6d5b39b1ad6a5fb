import { messageBody } from '@svc/common';
import type { Request, Response } from 'express';
import { msgBody } from '../http/envelopes.js';
import { sendList } from '../http/lists/send-list.js';
import type { RouterDeps } from '../http/router-deps.js';
import { IDEMPOTENT_REPLAYED } from '../idempotency/idempotency.messages.js';
import { requestKey } from '../idempotency/request-key.js';
import type { Page } from '../store/page.js';
import { MERCHANT_ADDED, MERCHANT_APPROVED } from './merchant.messages.js';
import type { MerchantRepository } from './merchant.repository.js';
import type { NewMerchant } from './merchant.schema.js';

/** Each route's work, given its parsed input: call the repository, answer; a failure is thrown. */
export function merchantHandlers(merchants: MerchantRepository, lists: RouterDeps) {
  return {
    async list(req: Request, res: Response, { query }: { query: Page | undefined }) {
      await sendList(req, res, merchants.list(), lists, 'merchant', query);
    },

    async add(req: Request, res: Response, { body }: { body: NewMerchant }) {
      const { id, replayed } = await merchants.create(
        body,
        requestKey(req.headers, req.body, 'merchant'),
      );
      if (replayed) res.set(IDEMPOTENT_REPLAYED, 'true');
      res.json(messageBody(200, MERCHANT_ADDED, { id }));
    },

    async approve(_req: Request, res: Response, { params }: { params: { id: number } }) {
      await merchants.approve(params.id);
      res.json(msgBody(200, MERCHANT_APPROVED));
    },
  };
}
