import { readFile } from 'node:fs/promises';
import { type RecordedResponse, recordedResponses, undocumentedResponses } from '@svc/test-kit';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../src/app.js';
import { notFoundBody } from '../src/http/docs/reply-schemas.js';
import {
  documentFile,
  documentText,
  platformDocument,
  platformOperations,
} from '../src/openapi.js';
import { registeredRoutes } from './support/registered-routes.js';
import { addMerchant, createTestApp, type TestApp, testLogs } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

/** The document as a client receives it. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

const documented = platformOperations.map(({ method, path }) => ({ method, path }));

/** Swagger UI's own files, served for the page at /docs, are not API routes. */
const UI_ASSETS = [
  { method: 'get', path: '/docs/' },
  { method: 'get', path: '/docs/init.js' },
];

type Answer = Omit<RecordedResponse, 'path' | 'headers'>;

/** An operation as the built document writes it: its answers' bodies by media type. */
type BuiltOperation = { responses: Record<string, { content?: Record<string, unknown> }> };

/** An answer as the recorder keeps it: the request's path is the route's, with the headers every answer carries. */
const onWire = (answer: Answer): RecordedResponse => ({
  ...answer,
  path: answer.route ?? '/nowhere',
  headers: { 'x-request-id': 'r-1', ...(answer.status === 405 ? { allow: 'GET, HEAD' } : {}) },
});

describe('GET /openapi.json and GET /docs', () => {
  it('answers the OpenAPI 3.1 document', async () => {
    const res = await request(t.app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(plain(platformDocument));
    expect(res.body).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'Platform service', version: '1.0.0' },
    });
  });

  it('answers an HTML page that loads Swagger UI on the document', async () => {
    const page = await request(t.app).get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<div id="swagger-ui"></div>');
    expect((await request(t.app).get('/docs/swagger-ui-bundle.js')).status).toBe(200);
    expect((await request(t.app).get('/docs/init.js')).text).toContain("url: '/openapi.json'");
  });

  it("gives the stream's 200 answer as text/event-stream, and every other body as JSON", () => {
    const paths = plain(platformDocument).paths as Record<string, Record<string, BuiltOperation>>;
    const bodies = Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, { responses }]) =>
        Object.entries(responses).flatMap(([status, { content }]) =>
          Object.keys(content ?? {}).map((type) => `${method} ${path} ${status} ${type}`),
        ),
      ),
    );
    expect(bodies.filter((body) => !body.endsWith(' application/json'))).toEqual([
      'get /api/events/stream 200 text/event-stream',
    ]);
    expect(paths['/api/events/stream']?.get?.responses['200']?.content).toEqual({
      'text/event-stream': {
        schema: { type: 'string', description: expect.stringContaining('Server-Sent Events') },
        example: expect.stringMatching(/^id: 42\nevent: order\.created\ndata: \{"id":"42",/),
      },
    });
  });

  it('is committed as openapi.json exactly as generated (pnpm openapi)', async () => {
    expect(await readFile(documentFile, 'utf8')).toBe(documentText(platformDocument));
  });
});

describe('routes and document', () => {
  it('documents every route the app registers, and nothing else', () => {
    const registered = registeredRoutes(t.app);
    const key = ({ method, path }: { method: string; path: string }) => `${method} ${path}`;
    const undocumented = registered.filter(
      (route) => !documented.some((doc) => key(doc) === key(route)),
    );
    expect(undocumented).toEqual(UI_ASSETS);
    const unregistered = documented.filter(
      (doc) => !registered.some((route) => key(route) === key(doc)),
    );
    expect(unregistered).toEqual([]);
    expect(documented).toHaveLength(new Set(documented.map(key)).size);
  });

  it.each(documented)('serves $method $path', async ({ method, path }) => {
    // A webhook's routes name a webhook, the others a merchant (or a row of no matter which kind).
    const id = path.startsWith('/api/webhooks/')
      ? (await request(t.app).post('/api/webhooks').send({ url: 'https://93.184.215.14/h' })).body
          .data.id
      : await addMerchant(t.app);
    const call = request(t.app)[method as 'get' | 'post' | 'put' | 'delete'](
      path.replace(':id', String(id)),
    );
    // A stream that opened would never end: a bad Last-Event-ID is answered at once, by the route.
    const res = await (path.endsWith('/stream') ? call.set('Last-Event-ID', 'x') : call);
    expect(res.status).not.toBe(404);
    expect(res.body).not.toEqual({ code: 404, message: 'Not Found' });
  });

  it('gives each path parameter of a route to its operation', () => {
    for (const { path, params } of platformOperations) {
      const names = [...path.matchAll(/:(\w+)/g)].map((match) => match[1]);
      expect(Object.keys(params?.shape ?? {}), path).toEqual(names);
    }
  });
});

/** The examples a schema carries in its metadata, its union members' included. */
function examplesOf(schema: z.ZodType): { schema: z.ZodType; example: unknown }[] {
  const own = ((schema.meta()?.examples as unknown[] | undefined) ?? []).map((example) => ({
    schema,
    example,
  }));
  const members = schema instanceof z.ZodUnion ? (schema.options as z.ZodType[]) : [];
  return [...own, ...members.flatMap(examplesOf)];
}

describe('examples', () => {
  it.each(platformOperations)('fit the schemas of $method $path', (operation) => {
    if (operation.body) expect(operation.body.safeParse(operation.bodyExample).success).toBe(true);
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!response.schema) continue;
      const examples = examplesOf(response.schema);
      if (response.example !== undefined) {
        examples.push({ schema: response.schema, example: response.example });
      }
      if (operation.path !== '/openapi.json') expect(examples.length, status).toBeGreaterThan(0);
      for (const { schema, example } of examples) {
        expect(schema.safeParse(example).error, JSON.stringify(example)).toBeUndefined();
        expect(response.schema.safeParse(example).success).toBe(true);
      }
    }
  });
});

/** The spec's texts of each route: its success, then its failures. */
const SPEC_TEXTS: [string, string[]][] = [
  ['get /api/merchant/list', ['获取成功', '获取失败']],
  ['post /api/merchant/add', ['添加成功', '添加失败']],
  ['put /api/merchant/approve/:id', ['商家审核通过!', '服务器出错', '商家不存在']],
  ['get /api/service/list', ['获取成功', '获取失败']],
  ['post /api/service/add', ['新增服务成功', '新增服务失败']],
  ['put /api/service/publish/:id', ['服务上架成功!', '服务器出错', '服务不存在']],
  ['put /api/service/unpublish/:id', ['服务下架成功!', '服务器出错', '服务不存在']],
  ['post /api/order/create', ['创建定单成功', '创建定单失败']],
  ['post /api/order/add', ['创建定单成功', '创建定单失败']],
  ['post /order/add', ['创建定单成功', '创建定单失败']],
  ['get /api/order/list', ['获取成功', '获取失败']],
  ['get /order/list', ['获取成功', '获取失败']],
  ['put /api/order/complete/:id', ['订单已完成!', '服务器出错', '订单不存在']],
];

describe("the spec's texts", () => {
  it.each(SPEC_TEXTS)('are the examples of %s', (route, texts) => {
    const operation = platformOperations.find(({ method, path }) => `${method} ${path}` === route);
    const response = operation?.responses[200];
    expect(response?.schema).toBeDefined();
    const shown = examplesOf(response!.schema!).map(({ example }) => {
      const { message, msg } = example as { message?: string; msg?: string };
      return message ?? msg;
    });
    expect(new Set(shown)).toEqual(new Set(texts));
    expect(response!.example).toMatchObject({ code: 200 });
  });
});

describe('response recorder', () => {
  it('records the answers of the test app, with the route that sent them', async () => {
    const before = recordedResponses().length;
    await request(t.app).put('/api/merchant/approve/999999');
    await request(t.app).delete('/api/merchant/list');
    await request(t.app).get('/api/nothing');
    const recorded = recordedResponses().slice(before);
    const answered = recorded.map(({ method, route, status, body }) => ({
      method,
      route,
      status,
      body,
    }));
    expect(answered).toEqual([
      {
        method: 'PUT',
        route: '/api/merchant/approve/:id',
        status: 200,
        body: { code: 404, msg: '商家不存在' },
      },
      {
        method: 'DELETE',
        route: '/api/merchant/list',
        status: 405,
        body: { code: 405, message: 'Method Not Allowed' },
      },
      { method: 'GET', status: 404, body: { code: 404, message: 'Not Found' } },
    ]);
  });

  it('reports every answer the document does not describe', () => {
    const answers: Answer[] = [
      {
        method: 'GET',
        route: '/api/merchant/list',
        status: 200,
        body: { code: 200, message: '获取成功', data: [{ id: 1 }] },
      },
      {
        method: 'GET',
        route: '/api/merchant/list',
        status: 200,
        body: { code: 404, message: '获取失败', error: 'x' },
      },
      {
        method: 'PUT',
        route: '/api/service/publish/:id',
        status: 200,
        body: { code: 200, msg: '服务下架成功!' },
      },
      { method: 'POST', route: '/api/merchant/add', status: 201, body: { code: 200 } },
      { method: 'POST', route: '/api/nothing', status: 200, body: {} },
      { method: 'DELETE', route: '/api/merchant/list', status: 404, body: {} },
      { method: 'GET', status: 200, body: {} },
    ];
    const problems = undocumentedResponses(answers.map(onWire), platformOperations, notFoundBody);
    expect(problems).toHaveLength(answers.length);
    expect(problems[3]).toBe(
      'POST /api/merchant/add HTTP 201 {"code":200}: HTTP 201 has no documented JSON body',
    );
    expect(problems[4]).toBe(
      'POST /api/nothing HTTP 200 {}: the route /api/nothing is not documented',
    );
  });

  it('accepts the answers the document describes', () => {
    const answers: Answer[] = [
      {
        method: 'PUT',
        route: '/api/service/unpublish/:id',
        status: 200,
        body: { code: 200, msg: '服务下架成功!' },
      },
      {
        method: 'POST',
        route: '/order/add',
        status: 200,
        body: { code: 413, message: '创建定单失败', error: 'request body is too large' },
      },
      {
        method: 'POST',
        route: '/api/order/list',
        status: 405,
        body: { code: 405, message: 'Method Not Allowed' },
      },
      { method: 'GET', status: 404, body: { code: 404, message: 'Not Found' } },
    ];
    expect(undocumentedResponses(answers.map(onWire), platformOperations, notFoundBody)).toEqual(
      [],
    );
  });

  it('is not part of the production app', () => {
    const app = createApp({ pool: t.pool, logger: testLogs().logger });
    expect(app.response.end).toBe(express.response.end);
    expect(app.response.write).toBe(express.response.write);
    expect(t.app.response.end).not.toBe(express.response.end);
  });
});
