import { AppError, messageBody, msgBody } from '@svc/common';
import type { Request, Response } from 'express';
import type { Page } from '../db/page.js';
import type { Slots } from '../db/slots.js';
import { pathId } from '../http/fields.js';
import { jsonBody, parseInput } from '../http/input.js';
import { sendList } from '../http/list.js';
import type { OrderRepository } from './order.repository.js';
import { newOrder, orderListQuery } from './order.schema.js';

/** `wholeLists` bounds the unpaged lists of this resource that read at once. */
export function orderHandlers(orders: OrderRepository, wholeLists: Slots) {
  return {
    async list(req: Request, res: Response) {
      const { status, page } = parseInput(orderListQuery, req.query);
      const source = {
        wholeLists,
        all: () => orders.all(status),
        page: (slice: Page) => orders.page(status, slice),
        count: () => orders.count(status),
      };
      await sendList(res, source, page);
    },

    async create(req: Request, res: Response) {
      const id = await orders.insert(parseInput(newOrder, jsonBody(req)));
      res.json(messageBody(200, '创建定单成功', { id }));
    },

    async complete(req: Request, res: Response) {
      const id = parseInput(pathId, req.params.id);
      if (!(await orders.complete(id))) throw new AppError(404, `order ${id} does not exist`);
      res.json(msgBody(200, '订单已完成!'));
    },
  };
}
