import { messageBody } from '@svc/common';
import type { Request, Response } from 'express';
import { msgBody } from '../http/envelopes.js';
import { jsonBody, parseInput, pathId, requestKey } from '../http/input.js';
import { sendList } from '../http/lists/send-list.js';
import type { RouterDeps } from '../http/router-deps.js';
import { IDEMPOTENT_REPLAYED } from '../idempotency/idempotency.messages.js';
import { ORDER_COMPLETED, ORDER_CREATED } from './order.messages.js';
import type { OrderRepository } from './order.repository.js';
import { newOrder, orderListQuery } from './order.schema.js';
import { sendWalkPage } from './order-walk.js';

/** Each route's work: parse the input, call the repository, answer; a failure is thrown. */
export function orderHandlers(orders: OrderRepository, { wholeLists }: RouterDeps) {
  return {
    /** A whole list or a numbered page (lists/send-list.ts), or a page of a walk by cursor. */
    async list(req: Request, res: Response) {
      const query = parseInput(orderListQuery, req.query);
      if (query.walk) await sendWalkPage(req, res, orders, query.status, query.walk);
      else await sendList(res, orders.list(query.status), wholeLists, query.page);
    },

    async create(req: Request, res: Response) {
      const order = parseInput(newOrder, jsonBody(req));
      const { id, replayed } = await orders.create(order, requestKey(req, 'order'));
      if (replayed) res.set(IDEMPOTENT_REPLAYED, 'true');
      res.json(messageBody(200, ORDER_CREATED, { id }));
    },

    async complete(req: Request, res: Response) {
      await orders.complete(parseInput(pathId, req.params.id));
      res.json(msgBody(200, ORDER_COMPLETED));
    },
  };
}
