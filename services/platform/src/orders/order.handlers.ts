import { messageBody } from '@svc/common';
import type { Request, Response } from 'express';
import { msgBody } from '../http/envelopes.js';
import { listed, sendList } from '../http/lists/send-list.js';
import type { RouterDeps } from '../http/router-deps.js';
import { IDEMPOTENT_REPLAYED } from '../idempotency/idempotency.messages.js';
import { requestKey } from '../idempotency/request-key.js';
import { ORDER_COMPLETED, ORDER_CREATED } from './order.messages.js';
import type { OrderRepository } from './order.repository.js';
import type { NewOrder, OrderListQuery } from './order.schema.js';

import { encodeCursor, nextPage, positionOf } from './order-cursor.js';

type Walk = NonNullable<OrderListQuery['walk']>;

/** Each route's work, given its parsed input: call the repository, answer; a failure is thrown. */
export function orderHandlers(orders: OrderRepository, lists: RouterDeps) {
  /**
   * A page of a walk by cursor: its rows after the last row of the page
   * before, so a deep page costs what the first does, and a row added
   * meanwhile never shifts the rows after it. The walk's first page carries
   * X-Total-Count; every page but the last X-Next-Cursor and a Link to the
   * next. One row more than the page is read to know whether a next page
   * exists.
   */
  async function walkPage(req: Request, status: number | undefined, walk: Walk) {
    const list = orders.list(status);
    const secret = await orders.cursorSecret();
    const after = walk.cursor === undefined ? undefined : positionOf(secret, walk.cursor, status);
    const [rows, total] = await Promise.all([
      list.walk(after, walk.limit + 1),
      after ? undefined : list.count(),
    ]);
    const headers: Record<string, string> = {};
    const last = rows.length > walk.limit ? rows[walk.limit - 1] : undefined;
    if (last) {
      rows.length = walk.limit;
      const createTime = Date.parse(last.create_time) / 1000;
      const next = encodeCursor(secret, { status, createTime, id: last.id });
      headers['X-Next-Cursor'] = next;
      headers.Link = `<${nextPage(req, next)}>; rel="next"`;
    }
    return listed(rows, headers, total);
  }

  return {
    /** A whole list or a numbered page (http/lists/send-list.ts), or a page of a walk by cursor. */
    async list(req: Request, res: Response, { query }: { query: OrderListQuery }) {
      const { status, page, walk } = query;
      if (!walk) return sendList(req, res, orders.list(status), lists, 'order', page);
      await lists.kept.send(req, res, 'order', () => walkPage(req, status, walk));
    },

    async create(req: Request, res: Response, { body }: { body: NewOrder }) {
      const { id, replayed } = await orders.create(
        body,
        requestKey(req.headers, req.body, 'order'),
      );
      if (replayed) res.set(IDEMPOTENT_REPLAYED, 'true');
      res.json(messageBody(200, ORDER_CREATED, { id }));
    },

    async complete(_req: Request, res: Response, { params }: { params: { id: number } }) {
      await orders.complete(params.id);
      res.json(msgBody(200, ORDER_COMPLETED));
    },
  };
}
