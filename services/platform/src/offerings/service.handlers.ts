import { messageBody } from '@svc/common';
import type { Request, Response } from 'express';
import { msgBody } from '../http/envelopes.js';
import { jsonBody, parseInput, pathId, requestKey } from '../http/input.js';
import { sendList } from '../http/lists/send-list.js';
import type { RouterDeps } from '../http/router-deps.js';
import { IDEMPOTENT_REPLAYED } from '../idempotency/idempotency.messages.js';
import { SERVICE_ADDED } from './service.messages.js';
import type { ServiceRepository } from './service.repository.js';
import { newService, serviceListQuery } from './service.schema.js';

/** Each route's work: parse the input, call the repository, answer; a failure is thrown. */
export function serviceHandlers(services: ServiceRepository, { wholeLists }: RouterDeps) {
  return {
    async list(req: Request, res: Response) {
      const { category, page } = parseInput(serviceListQuery, req.query);
      await sendList(res, services.list(category), wholeLists, page);
    },

    async add(req: Request, res: Response) {
      const service = parseInput(newService, jsonBody(req));
      const { id, replayed } = await services.create(service, requestKey(req, 'service'));
      if (replayed) res.set(IDEMPOTENT_REPLAYED, 'true');
      res.json(messageBody(200, SERVICE_ADDED, { id }));
    },

    /** Publish (status 1) or unpublish (status 0), answering `done`. */
    shelve: (status: 0 | 1, done: string) => async (req: Request, res: Response) => {
      await services.setStatus(parseInput(pathId, req.params.id), status);
      res.json(msgBody(200, done));
    },
  };
}
