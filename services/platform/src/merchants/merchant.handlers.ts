import { AppError, messageBody, msgBody } from '@svc/common';
import type { Request, Response } from 'express';
import type { Page } from '../db/page.js';
import type { Slots } from '../db/slots.js';
import { pathId } from '../http/fields.js';
import { jsonBody, parseInput } from '../http/input.js';
import { sendList } from '../http/list.js';
import type { MerchantRepository } from './merchant.repository.js';
import { merchantListQuery, newMerchant } from './merchant.schema.js';

/** `wholeLists` bounds the unpaged lists of this resource that read at once. */
export function merchantHandlers(merchants: MerchantRepository, wholeLists: Slots) {
  return {
    async list(req: Request, res: Response) {
      const page = parseInput(merchantListQuery, req.query);
      const source = {
        wholeLists,
        all: () => merchants.list(),
        page: (slice: Page) => merchants.list(slice),
        count: () => merchants.count(),
      };
      await sendList(res, source, page);
    },

    async add(req: Request, res: Response) {
      const id = await merchants.insert(parseInput(newMerchant, jsonBody(req)));
      res.json(messageBody(200, '添加成功', { id }));
    },

    async approve(req: Request, res: Response) {
      const id = parseInput(pathId, req.params.id);
      if (!(await merchants.approve(id))) throw new AppError(404, `merchant ${id} does not exist`);
      res.json(msgBody(200, '商家审核通过!'));
    },
  };
}
