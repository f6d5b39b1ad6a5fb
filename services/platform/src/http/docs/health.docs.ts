import type { OperationDoc } from '@svc/common';
import { z } from 'zod';
import { NOT_READY } from '../messages.js';

const tags = ['health'];

/** common's healthRouter as this service mounts it, with MySQL as its one store. */
export const healthDocs: OperationDoc[] = [
  {
    method: 'get',
    path: '/healthz',
    summary: 'The process runs',
    tags,
    responses: {
      200: {
        description: 'always, while the process runs',
        schema: z.strictObject({
          code: z.literal(200),
          message: z.literal('ok'),
          data: z.strictObject({ status: z.literal('up') }),
        }),
        example: { code: 200, message: 'ok', data: { status: 'up' } },
      },
    },
  },
  {
    method: 'get',
    path: '/readyz',
    summary: 'MySQL answers',
    tags,
    responses: {
      200: {
        description: 'MySQL answers',
        schema: z.strictObject({
          code: z.literal(200),
          message: z.literal('ok'),
          data: z.strictObject({ mysql: z.literal('up') }),
        }),
        example: { code: 200, message: 'ok', data: { mysql: 'up' } },
      },
      503: {
        description: 'MySQL does not answer within 2 s',
        schema: z.strictObject({
          code: z.literal(503),
          message: z.literal(NOT_READY),
          data: z.strictObject({ mysql: z.literal('down') }),
        }),
        example: { code: 503, message: NOT_READY, data: { mysql: 'down' } },
      },
    },
  },
];
