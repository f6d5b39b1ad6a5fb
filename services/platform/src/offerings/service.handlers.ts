import { messageBody } from '@svc/common';
import type { Request, Response } from 'express';
import { msgBody } from '../http/envelopes.js';
import { sendList } from '../http/lists/send-list.js';
import type { RouterDeps } from '../http/router-deps.js';
import { IDEMPOTENT_REPLAYED } from '../idempotency/idempotency.messages.js';
import { requestKey } from '../idempotency/request-key.js';
import { SERVICE_ADDED } from './service.messages.js';
import type { ServiceRepository } from './service.repository.js';
import type { NewService, ServiceListQuery } from './service.schema.js';

/** Each route's work, given its parsed input: call the repository, answer; a failure is thrown. */
export function serviceHandlers(services: ServiceRepository, lists: RouterDeps) {
  return {
    async list(req: Request, res: Response, { query }: { query: ServiceListQuery }) {
      await sendList(req, res, services.list(query.category), lists, 'service', query.page);
    },

    async add(req: Request, res: Response, { body }: { body: NewService }) {
      const { id, replayed } = await services.create(
        body,
        requestKey(req.headers, req.body, 'service'),
      );
      if (replayed) res.set(IDEMPOTENT_REPLAYED, 'true');
      res.json(messageBody(200, SERVICE_ADDED, { id }));
    },

    /** Publish (status 1) or unpublish (status 0), answering `done`. */
    shelve:
      (status: 0 | 1, done: string) =>
      async (_req: Request, res: Response, { params }: { params: { id: number } }) => {
        await services.setStatus(params.id, status);
        res.json(msgBody(200, done));
      },
  };
}
