import { createRequire } from 'node:module';
import { buildOpenApi, type OpenApiDocument, openApiPath } from '@svc/common';
import { z } from 'zod';
import { healthDocs } from './health.docs.js';
import { type AuthOperationDoc, notFoundBody } from './response-docs.js';
import { userDocs } from './users/user.docs.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/** The document describes where it is served, too. */
const documentDocs: AuthOperationDoc[] = [
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

const requestIdParameter = z.object({
  'X-Request-Id': z
    .string()
    .optional()
    .describe(
      'Your id for this request: kept when it is 1 to 128 of A-Z a-z 0-9 . _ -, else replaced.',
    ),
});

const requestIdHeader = {
  'X-Request-Id': {
    description: 'The id under which the service logged this request.',
    schema: z.string(),
  },
};

/** Every answer carries the request's id, and every request may bring one. */
function withRequestId(operation: AuthOperationDoc): AuthOperationDoc {
  const responses = Object.entries(operation.responses).map(([status, response]) => [
    status,
    { ...response, headers: { ...requestIdHeader, ...response.headers } },
  ]);
  return {
    ...operation,
    headers: operation.headers?.extend(requestIdParameter.shape) ?? requestIdParameter,
    responses: Object.fromEntries(responses),
  };
}

/** Every route the service serves, with the zod schemas that validate and describe it. */
export const authOperations: AuthOperationDoc[] = [...userDocs, ...healthDocs, ...documentDocs].map(
  withRequestId,
);

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

const TOKEN_REQUIRED = [{ bearer: [] }, { token: [] }];
/** `{}` first: the route answers without a token as well. */
const TOKEN_OPTIONAL = [{}, ...TOKEN_REQUIRED];

function outputSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'output' });
  return rest;
}

export function buildAuthOpenApi(): OpenApiDocument {
  const document = buildOpenApi({ title: 'Auth service', version, description }, authOperations);
  for (const operation of authOperations) {
    if (!operation.token) continue;
    const entry = document.paths[openApiPath(operation.path)]?.[operation.method] as
      | Record<string, unknown>
      | undefined;
    if (entry) entry.security = operation.token === 'required' ? TOKEN_REQUIRED : TOKEN_OPTIONAL;
  }
  const notFound = {
    description: 'No route for this path and method.',
    content: {
      'application/json': {
        schema: outputSchema(notFoundBody),
        example: { code: 404, message: 'Not Found' },
      },
    },
  };
  return { ...document, components: { securitySchemes, responses: { NotFound: notFound } } };
}

export const openApiDocument: OpenApiDocument = buildAuthOpenApi();
