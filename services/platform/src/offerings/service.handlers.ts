import { AppError, messageBody, msgBody } from '@svc/common';
import type { Request, Response } from 'express';
import type { Page } from '../db/page.js';
import type { Slots } from '../db/slots.js';
import { pathId } from '../http/fields.js';
import { jsonBody, parseInput } from '../http/input.js';
import { sendList } from '../http/list.js';
import type { ServiceRepository } from './service.repository.js';
import { newService, serviceListQuery } from './service.schema.js';

/** `wholeLists` bounds the unpaged lists of this resource that read at once. */
export function serviceHandlers(services: ServiceRepository, wholeLists: Slots) {
  async function shelve(req: Request, res: Response, status: 0 | 1, done: string) {
    const id = parseInput(pathId, req.params.id);
    if (!(await services.setStatus(id, status))) {
      throw new AppError(404, `service ${id} does not exist`);
    }
    res.json(msgBody(200, done));
  }

  return {
    async list(req: Request, res: Response) {
      const { category, page } = parseInput(serviceListQuery, req.query);
      const source = {
        wholeLists,
        all: () => services.list(category),
        page: (slice: Page) => services.list(category, slice),
        count: () => services.count(category),
      };
      await sendList(res, source, page);
    },

    async add(req: Request, res: Response) {
      const id = await services.insert(parseInput(newService, jsonBody(req)));
      res.json(messageBody(200, '新增服务成功', { id }));
    },

    publish: (req: Request, res: Response) => shelve(req, res, 1, '服务上架成功!'),

    unpublish: (req: Request, res: Response) => shelve(req, res, 0, '服务下架成功!'),
  };
}
