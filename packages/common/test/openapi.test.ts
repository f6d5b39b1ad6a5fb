import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { docsRouter } from '../src/docs-router.js';
import { buildOpenApi, type OperationDoc, openApiPath } from '../src/openapi.js';

const body = z.object({
  name: z.string().max(100).describe('merchant name'),
  stock: z.number().optional(),
});
const reply = z.object({
  code: z.literal(200),
  message: z.string(),
  data: z.object({ id: z.number().int() }),
});

const operations: OperationDoc[] = [
  {
    method: 'post',
    path: '/api/merchant/add',
    summary: 'Add a merchant',
    body,
    bodyExample: { name: 'Clean Co' },
    responses: {
      200: {
        description: 'added',
        schema: reply,
        example: { code: 200, message: '添加成功', data: { id: 1 } },
      },
    },
  },
  {
    method: 'put',
    path: '/api/merchant/approve/:id',
    summary: 'Approve',
    params: z.object({ id: z.string().regex(/^\d+$/) }),
    headers: z.object({ authorization: z.string().optional().describe('Bearer token') }),
    query: z.object({ page: z.string().optional() }),
    responses: {
      200: {
        description: 'ok',
        headers: { 'X-Total-Count': { description: 'rows', schema: z.number() } },
      },
    },
    security: [{ adminToken: [] }],
  },
];

const securitySchemes = { adminToken: { type: 'http', scheme: 'bearer' } };
const notFound = { description: 'no route', schema: z.object({ code: z.literal(404) }) };
const document = buildOpenApi({
  info: { title: 'Test API', version: '1.0.0' },
  operations,
  securitySchemes,
  notFound,
});

interface Operation {
  parameters: { name: string }[];
  responses: Record<string, { headers: Record<string, unknown> }>;
}

/** The document as a client receives it: plain JSON, freely indexable. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('buildOpenApi', () => {
  it('turns Express paths into OpenAPI paths', () => {
    expect(openApiPath('/api/merchant/approve/:id')).toBe('/api/merchant/approve/{id}');
  });

  it('describes bodies, parameters and responses from the zod schemas', () => {
    expect(document.openapi).toBe('3.1.0');
    const add = plain(document.paths['/api/merchant/add']?.post);
    expect(add.requestBody.content['application/json']).toEqual({
      schema: {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: 100, description: 'merchant name' },
          stock: { type: 'number' },
        },
        required: ['name'],
      },
      example: { name: 'Clean Co' },
    });
    expect(add.responses[200].content['application/json'].example).toEqual({
      code: 200,
      message: '添加成功',
      data: { id: 1 },
    });
    const approve = plain(document.paths['/api/merchant/approve/{id}']?.put);
    expect(approve.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^\\d+$' } },
      { name: 'page', in: 'query', required: false, schema: { type: 'string' } },
      {
        name: 'authorization',
        in: 'header',
        required: false,
        description: 'Bearer token',
        schema: { type: 'string' },
      },
      expect.objectContaining({ name: 'X-Request-Id', in: 'header', required: false }),
    ]);
    expect(approve.responses[200].headers['X-Total-Count'].schema).toEqual({ type: 'number' });
  });

  it('gives every operation the request id: an optional header in, a header on every answer', () => {
    for (const [path, item] of Object.entries(plain(document.paths))) {
      for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
        const where = `${method} ${path}`;
        expect(operation.parameters.at(-1), where).toMatchObject({ name: 'X-Request-Id' });
        for (const response of Object.values(operation.responses)) {
          expect(response.headers['X-Request-Id'], where).toMatchObject({
            schema: { type: 'string' },
          });
        }
      }
    }
  });

  it("writes the security schemes, each operation's requirement and the shared 404", () => {
    const built = plain(document);
    expect(built.components.securitySchemes).toEqual(securitySchemes);
    expect(built.paths['/api/merchant/approve/{id}'].put.security).toEqual([{ adminToken: [] }]);
    expect(built.paths['/api/merchant/add'].post.security).toBeUndefined();
    expect(built.components.responses.NotFound.content['application/json'].schema).toMatchObject({
      properties: { code: { const: 404 } },
    });
  });
});

describe('docsRouter', () => {
  const app = express().use(docsRouter(document));

  it('serves the document at /openapi.json', async () => {
    const res = await request(app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('serves an interactive reference at /docs with its assets', async () => {
    const page = await request(app).get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('/docs/swagger-ui-bundle.js');
    const bundle = await request(app).get('/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.text.length).toBeGreaterThan(100_000);
    const init = await request(app).get('/docs/init.js');
    expect(init.text).toContain("url: '/openapi.json'");
  });
});
