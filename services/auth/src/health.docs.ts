import { UNAVAILABLE_MESSAGE } from '@svc/common';
import { z } from 'zod';
import { type AuthOperationDoc, envelope, success } from './response-docs.js';

const state = z.enum(['up', 'down']);
const stores = (redis: z.ZodType, mysql: z.ZodType) => z.strictObject({ redis, mysql });

export const healthDocs: AuthOperationDoc[] = [
  {
    method: 'get',
    path: '/healthz',
    summary: 'The process runs',
    tags: ['health'],
    responses: {
      200: success('Always, while the process runs.', 'ok', {
        schema: z.strictObject({ status: z.literal('up') }),
        example: { status: 'up' },
      }),
    },
  },
  {
    method: 'get',
    path: '/readyz',
    summary: 'Redis and MySQL answer',
    tags: ['health'],
    responses: {
      200: success('Both stores answer.', 'ok', {
        schema: stores(z.literal('up'), z.literal('up')),
        example: { redis: 'up', mysql: 'up' },
      }),
      503: {
        description: 'A store does not answer; `data` names which.',
        schema: envelope(503, z.literal(UNAVAILABLE_MESSAGE), stores(state, state)),
        example: { code: 503, message: UNAVAILABLE_MESSAGE, data: { redis: 'down', mysql: 'up' } },
      },
    },
  },
];
