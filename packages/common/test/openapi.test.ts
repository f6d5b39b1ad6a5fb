import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApi, docsRouter, openApiPath } from '../src/openapi.js';

const body = z.object({
  name: z.string().max(100).describe('merchant name'),
  stock: z.number().optional(),
});
const reply = z.object({
  code: z.literal(200),
  message: z.string(),
  data: z.object({ id: z.number().int() }),
});

const document = buildOpenApi({ title: 'Test API', version: '1.0.0' }, [
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
  },
]);

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
    ]);
    expect(approve.responses[200].headers['X-Total-Count'].schema).toEqual({ type: 'number' });
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
