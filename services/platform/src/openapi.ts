import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildOpenApi, type OpenApiDocument, type OperationDoc, openApiPath } from '@svc/common';
import { z } from 'zod';
import {
  type EndpointDoc,
  operationDoc,
  requestIdHeader,
  requestIdReply,
} from './http/endpoints.js';
import { healthDocs } from './http/health.docs.js';
import { merchantDocs } from './merchants/merchant.docs.js';
import { serviceDocs } from './offerings/service.docs.js';
import { orderDocs } from './orders/order.docs.js';

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

const endpointDocs: EndpointDoc[] = [
  ...Object.values(merchantDocs),
  ...Object.values(serviceDocs),
  ...Object.values(orderDocs),
];

/** Every operation of the service, with the zod schemas its requests and answers follow. */
export const platformOperations: OperationDoc[] = [
  ...endpointDocs.map(operationDoc),
  ...healthDocs,
  ...referenceDocs,
];

const ADMIN_TOKEN = 'adminToken';

const ADMIN_NOTE =
  'An administrator route: while the service runs with PLATFORM_ADMIN_TOKEN set, it takes `Authorization: Bearer <PLATFORM_ADMIN_TOKEN>` and answers code 401 (`administrator token required`, at HTTP 200) without it. With the variable unset it is open, as the spec has it.';

/** The document, with the Bearer token of the administrator routes (common's builder knows no security). */
function withAdminToken(document: OpenApiDocument): OpenApiDocument {
  for (const endpoint of endpointDocs.filter((candidate) => candidate.admin)) {
    const path = document.paths[openApiPath(endpoint.path)];
    const operation = path?.[endpoint.method] as { summary: string } | undefined;
    if (!path || !operation)
      throw new Error(`${endpoint.method} ${endpoint.path} is not documented`);
    const { summary, ...rest } = operation;
    path[endpoint.method] = {
      summary,
      description: ADMIN_NOTE,
      ...rest,
      security: [{ [ADMIN_TOKEN]: [] }],
    };
  }
  return {
    ...document,
    components: {
      securitySchemes: {
        [ADMIN_TOKEN]: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The value of PLATFORM_ADMIN_TOKEN. Required by the administrator routes only while the service runs with that variable set; otherwise every route is open.',
        },
      },
    },
  };
}

export const platformDocument: OpenApiDocument = withAdminToken(
  buildOpenApi(
    { title: 'Platform service', version, description: DESCRIPTION },
    platformOperations,
  ),
);

/** The committed copy of the document, beside src/ and dist/ alike. */
export const documentFile = fileURLToPath(new URL('../openapi.json', import.meta.url));

export const documentText = (document: OpenApiDocument) => `${JSON.stringify(document, null, 2)}\n`;
