import type { OperationDoc } from '@svc/common';
import { STORE_UNAVAILABLE_MESSAGE as UNAVAILABLE } from '@svc/session-guard';
import { z } from 'zod';
import { envelope, success } from './responses.docs.js';

const state = z.enum(['up', 'down']);
const warnings = z
  .array(z.string())
  .optional()
  .describe(
    "Present when start-up found Redis's maxmemory-policy other than noeviction: why that endangers sessions.",
  );
const stores = (redis: z.ZodType, mysql: z.ZodType) => z.strictObject({ redis, mysql, warnings });

export const healthDocs: OperationDoc[] = [
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
        schema: envelope(503, z.literal(UNAVAILABLE), stores(state, state)),
        example: { code: 503, message: UNAVAILABLE, data: { redis: 'down', mysql: 'up' } },
      },
    },
  },
];
