import type { OperationDoc } from '@svc/common';
import { z } from 'zod';

/** The document's introduction. */
export const DESCRIPTION = `Merchants, the services they offer, and orders for them.

The spec's routes answer HTTP 200 whatever the outcome; the body \`code\` tells it (200, 400, 401, 404, 413, 415 or 500), and each route fails in its own envelope. Data routes answer \`{ code, message, data }\`, status changes \`{ code, msg }\`.

The administrator routes (merchant add and approve, service add, publish and unpublish, the order list) take \`Authorization: Bearer <token>\` when the service runs with PLATFORM_ADMIN_TOKEN set, and answer code 401 in their envelope without it; with the variable unset they are open, as the spec has them. Clients that always send the token work either way.

Any path no route serves answers HTTP 404 \`{ "code": 404, "message": "Not Found" }\`. CORS is open to any origin.`;

/** The document itself and its interactive page. */
export const referenceDocs: OperationDoc[] = [
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    tags: ['reference'],
    responses: {
      200: {
        description: 'the OpenAPI 3.1 document',
        schema: z.looseObject({
          openapi: z.literal('3.1.0'),
          paths: z.record(z.string(), z.unknown()),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/docs',
    summary: 'An interactive reference of this document (Swagger UI), as an HTML page',
    tags: ['reference'],
    responses: { 200: { description: 'the HTML page' } },
  },
];
