import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildOpenApi, type OpenApiDocument, type OperationDoc } from '@svc/common';
import { z } from 'zod';
import { operationDoc, requestIdHeader, requestIdReply } from './http/endpoints.js';
import { healthDocs } from './http/health.docs.js';
import { merchantDocs } from './merchants/merchant.docs.js';
import { orderDocs } from './orders/order.docs.js';
import { serviceDocs } from './services/service.docs.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const DESCRIPTION = `Merchants, the services they offer, and orders for them.

The spec's routes answer HTTP 200 whatever the outcome; the body \`code\` tells it (200, 400, 404, 413, 415 or 500), and each route fails in its own envelope. Data routes answer \`{ code, message, data }\`, status changes \`{ code, msg }\`.

Any path no route serves answers HTTP 404 \`{ "code": 404, "message": "Not Found" }\`. CORS is open to any origin.`;

const referenceDocs: OperationDoc[] = [
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    tags: ['reference'],
    headers: requestIdHeader,
    responses: {
      200: {
        description: 'the OpenAPI 3.1 document',
        schema: z.looseObject({
          openapi: z.literal('3.1.0'),
          paths: z.record(z.string(), z.unknown()),
        }),
        headers: requestIdReply,
      },
    },
  },
  {
    method: 'get',
    path: '/docs',
    summary: 'An interactive reference of this document (Swagger UI), as an HTML page',
    tags: ['reference'],
    headers: requestIdHeader,
    responses: { 200: { description: 'the HTML page', headers: requestIdReply } },
  },
];

/** Every operation of the service, with the zod schemas its requests and answers follow. */
export const platformOperations: OperationDoc[] = [
  ...[
    ...Object.values(merchantDocs),
    ...Object.values(serviceDocs),
    ...Object.values(orderDocs),
  ].map(operationDoc),
  ...healthDocs,
  ...referenceDocs,
];

export const platformDocument: OpenApiDocument = buildOpenApi(
  { title: 'Platform service', version, description: DESCRIPTION },
  platformOperations,
);

/** The committed copy of the document, beside src/ and dist/ alike. */
export const documentFile = fileURLToPath(new URL('../openapi.json', import.meta.url));

export const documentText = (document: OpenApiDocument) => `${JSON.stringify(document, null, 2)}\n`;
