import { buildOpenApi, type OpenApiDocument, type OperationDoc } from '@svc/common';
import { documentDocs, version } from './api-docs/document.docs.js';
import { healthDocs } from './api-docs/health.docs.js';
import { notFoundBody } from './api-docs/responses.docs.js';
import { METHOD_NOT_ALLOWED, NOT_FOUND } from './http/messages.js';
import { operationOf } from './http/routes.js';
import { securityEventRoutes } from './security/security-event.routes.js';
import { sessionRoutes } from './sessions/session.routes.js';
import { twoFactorRoutes } from './two-factor/two-factor.routes.js';
import { userRoutes } from './users/user.routes.js';

/** Every route the service serves, with the zod schemas that validate and describe it. */
export const authOperations: OperationDoc[] = [
  ...userRoutes.map(operationOf),
  ...twoFactorRoutes.map(operationOf),
  ...sessionRoutes.map(operationOf),
  ...securityEventRoutes.map(operationOf),
  ...healthDocs,
  ...documentDocs,
];

const description = `Register, log in and hold a session; the guard's routes take the token in
\`Authorization: Bearer <token>\` (read first; exactly \`Bearer\` and one space) or in \`token: <token>\`.
Every answer is \`{ code, message, data? }\` with the HTTP status equal to \`code\`, and every answer
carries an \`X-Request-Id\`. A path not listed here answers 404 \`{ code: 404, message: '${NOT_FOUND}' }\`;
a listed path asked with another method answers 405 \`{ code: 405, message: '${METHOD_NOT_ALLOWED}' }\`
with \`Allow\` naming its methods.`;

const securitySchemes = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      '`Authorization: Bearer <token>`: read first; the value must start with `Bearer ` (one space).',
  },
  token: {
    type: 'apiKey',
    in: 'header',
    name: 'token',
    description: '`token: <token>`: used when `Authorization` does not start with `Bearer `.',
  },
};

export const openApiDocument: OpenApiDocument = buildOpenApi({
  info: { title: 'Auth service', version, description },
  operations: authOperations,
  securitySchemes,
  notFound: {
    description: 'No route for this path.',
    schema: notFoundBody,
    example: { code: 404, message: NOT_FOUND },
  },
});
