import type { OperationDoc } from '@svc/common';
import { z } from 'zod';
import { NOT_READY } from '../messages.js';

const tags = ['health'];

/** With EVENTS_NATS_URL: where the relay to JetStream stands, which readiness does not wait for. */
const relay = z.enum(['caught up', 'behind']).optional().meta({
  description:
    'with EVENTS_NATS_URL only: behind while the oldest event not yet relayed to JetStream is a second old or more',
});

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
    summary: 'MySQL answers (and, with the JetStream relay, whether it is behind)',
    tags,
    responses: {
      200: {
        description: 'MySQL answers',
        schema: z.strictObject({
          code: z.literal(200),
          message: z.literal('ok'),
          data: z.strictObject({ mysql: z.literal('up'), relay }),
        }),
        example: { code: 200, message: 'ok', data: { mysql: 'up' } },
      },
      503: {
        description: 'MySQL does not answer within 2 s',
        schema: z.strictObject({
          code: z.literal(503),
          message: z.literal(NOT_READY),
          data: z.strictObject({ mysql: z.literal('down'), relay }),
        }),
        example: { code: 503, message: NOT_READY, data: { mysql: 'down' } },
      },
    },
  },
];
