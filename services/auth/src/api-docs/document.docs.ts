import { createRequire } from 'node:module';
import type { OperationDoc } from '@svc/common';
import { z } from 'zod';

export const { version } = createRequire(import.meta.url)('../../package.json') as {
  version: string;
};

/** The document describes where it is served, too. */
export const documentDocs: OperationDoc[] = [
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
