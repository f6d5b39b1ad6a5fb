import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildOpenApi, type OpenApiDocument, type OperationDoc } from '@svc/common';
import { z } from 'zod';
import { healthDocs } from './api-docs/health.docs.js';
import { withMediaTypes } from './api-docs/media-types.js';
import { notFoundBody } from './api-docs/reply-schemas.js';
import { ADMIN_TOKEN_SCHEME, operationDocs } from './api-docs/route-doc.js';
import { statusOperation } from './api-docs/status-route.js';
import { eventRoutes } from './events/event.routes.js';
import { NOT_FOUND } from './http/messages.js';
import { merchantRoutes } from './merchants/merchant.routes.js';
import { serviceRoutes } from './offerings/service.routes.js';
import { orderRoutes } from './orders/order.routes.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const DESCRIPTION = `Merchants, the services they offer, and orders for them.

The spec's routes answer HTTP 200 whatever the outcome; the body \`code\` tells it (200, 400, 401, 404, 413, 415 or 500), and each route fails in its own envelope. Data routes answer \`{ code, message, data }\`, status changes \`{ code, msg }\`.

The administrator routes (merchant add and approve, service add, publish and unpublish, the order list) take \`Authorization: Bearer <token>\` when the service runs with PLATFORM_ADMIN_TOKEN set, and answer code 401 in their envelope without it; with the variable unset they are open, as the spec has them. Clients that always send the token work either way.

Any path no route serves answers HTTP 404 \`{ "code": 404, "message": "Not Found" }\`. CORS is open to any origin.`;

const referenceDocs: OperationDoc[] = [
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

/** The spec's routes, each failing in its own envelope at HTTP 200. */
export const specRoutes = [...merchantRoutes, ...serviceRoutes, ...orderRoutes];

/** The routes outside the spec, whose failures are answered at their HTTP status. */
export const statusRoutes = [...eventRoutes, ...webhookRoutes];

/** Every operation of the service, with the zod schemas its requests and answers follow. */
export const platformOperations: OperationDoc[] = [
  ...specRoutes.flatMap(operationDocs),
  ...statusRoutes.map(({ handler, json, ...route }) => statusOperation(route)),
  ...healthDocs,
  ...referenceDocs,
];

export const platformDocument: OpenApiDocument = withMediaTypes(
  buildOpenApi({
    info: { title: 'Platform service', version, description: DESCRIPTION },
    operations: platformOperations,
    securitySchemes: {
      [ADMIN_TOKEN_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        description:
          'The value of PLATFORM_ADMIN_TOKEN. Required by the administrator routes only while the service runs with that variable set; otherwise every route is open.',
      },
    },
    notFound: {
      description: 'Any path no route serves',
      schema: notFoundBody,
      example: { code: 404, message: NOT_FOUND },
    },
  }),
  platformOperations,
);

/** The committed copy of the document, beside src/ and dist/ alike. */
export const documentFile = fileURLToPath(new URL('../openapi.json', import.meta.url));

export const documentText = (document: OpenApiDocument) => `${JSON.stringify(document, null, 2)}\n`;
