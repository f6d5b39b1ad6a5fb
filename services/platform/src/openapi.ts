import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildOpenApi, type OpenApiDocument, type OperationDoc } from '@svc/common';
import { eventRoutes } from './feed/event.routes.js';
import { healthDocs } from './http/docs/health.docs.js';
import { withMediaTypes } from './http/docs/media-types.js';
import { DESCRIPTION, referenceDocs } from './http/docs/reference.docs.js';
import { notFoundBody } from './http/docs/reply-schemas.js';
import { ADMIN_TOKEN_SCHEME, operationDocs } from './http/docs/route-doc.js';
import { statusOperation } from './http/docs/status-route.js';
import { NOT_FOUND } from './http/messages.js';
import { isStatusRoute } from './http/routes.js';
import { merchantRoutes } from './merchants/merchant.routes.js';
import { serviceRoutes } from './offerings/service.routes.js';
import { orderRoutes } from './orders/order.routes.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/** Every route, the spec's first, as the API document lists them. */
export const platformRoutes = [
  ...merchantRoutes,
  ...serviceRoutes,
  ...orderRoutes,
  ...eventRoutes,
  ...webhookRoutes,
];

/** Every operation of the service, with the zod schemas its requests and answers follow. */
export const platformOperations: OperationDoc[] = [
  ...platformRoutes.flatMap(({ handler, ...route }) =>
    isStatusRoute(route) ? [statusOperation(route)] : operationDocs(route),
  ),
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
