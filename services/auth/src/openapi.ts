import { createRequire } from 'node:module';
import { buildOpenApi, type OpenApiDocument, type OperationDoc } from '@svc/common';
import { z } from 'zod';
import { healthDocs } from './http/health.docs.js';
import { NOT_FOUND } from './http/messages.js';
import { notFoundBody } from './http/response-docs.js';
import { sessionDocs } from './users/session.docs.js';
import { userDocs } from './users/user.docs.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/** The document describes where it is served, too. */
const documentDocs: OperationDoc[] = [
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    tags: ['docs'],
    responses: {
      200: {
        description: 'The document.',
        schema: z.looseObject({
          openapi: z.literal('3.1.0'),
          info: z.looseObject({ title: z.string(), version: z.string() }),
          paths: z.record(z.string(), z.record(z.string(), z.unknown())),
        }),
        example: { openapi: '3.1.0', info: { title: 'Auth service', version }, paths: {} },
      },
    },
  },
  {
    method: 'get',
    path: '/docs',
    summary: 'An interactive reference (Swagger UI, HTML) to try every route',
    tags: ['docs'],
    responses: { 200: { description: 'An HTML page.' } },
  },
];

/** Every route the service serves, with the zod schemas that validate and describe it. */
export const authOperations: OperationDoc[] = [
  ...userDocs,
  ...sessionDocs,
  ...healthDocs,
  ...documentDocs,
];

const description = `Register, log in and hold a session; the guard's routes take the token in
\`Authorization: Bearer <token>\` (read first; exactly \`Bearer\` and one space) or in \`token: <token>\`.
Every answer is \`{ code, message, data? }\` with the HTTP status equal to \`code\`, and every answer
carries an \`X-Request-Id\`. A path or method not listed here answers 404 \`{ code: 404, message: 'Not Found' }\`.`;

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
    description: 'No route for this path and method.',
    schema: notFoundBody,
    example: { code: 404, message: NOT_FOUND },
  },
});
