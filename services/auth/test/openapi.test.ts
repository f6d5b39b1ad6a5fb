import { readFileSync } from 'node:fs';
import { recordedResponses } from '@svc/test-kit';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/openapi.js';
import { bearer, buildApp, openStores, type Stores } from './support/test-app.js';

/** The document as a client receives it. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
const NOT_FOUND = { code: 404, message: 'Not Found' };

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `METHOD path` of every route registered in the app, nested routers included. */
function registeredRoutes(app: Express): string[] {
  const walk = (stack: Layer[]): string[] =>
    stack.flatMap((layer) => {
      if (!layer.route) return layer.handle?.stack ? walk(layer.handle.stack) : [];
      const paths = ([] as string[]).concat(layer.route.path);
      const methods = Object.keys(layer.route.methods).filter((method) => method !== '_all');
      return paths.flatMap((path) => methods.map((method) => `${method.toUpperCase()} ${path}`));
    });
  return walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
}

/** `METHOD path` of every operation in the document, as Express writes paths. */
function documentedRoutes(): string[] {
  return Object.entries(openApiDocument.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map(
      (method) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`,
    ),
  );
}

/** Swagger UI's own script and files under /docs/ are the page, not the API. */
const isSwaggerAsset = (route: string) => route.split(' ')[1]!.startsWith('/docs/');

describe('the committed openapi.json', () => {
  it('is the document the service generates (else run: pnpm --filter @svc/auth openapi)', () => {
    const committed = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8');
    expect(JSON.parse(committed)).toEqual(plain(openApiDocument));
  });
});

describe('routes and document', () => {
  let stores: Stores;
  let app: Express;
  beforeAll(async () => {
    stores = await openStores();
    app = buildApp(stores).app;
  });
  afterAll(() => stores.close());

  it('documents exactly the routes the app registers', () => {
    const registered = registeredRoutes(app).filter((route) => !isSwaggerAsset(route));
    expect(registered).toContain('POST /api/user/change-password');
    expect([...new Set(registered)].sort()).toEqual(documentedRoutes().sort());
  });

  it('serves every documented route', async () => {
    for (const route of documentedRoutes()) {
      const [method, path] = route.split(' ') as [string, string];
      const res = await request(app)[method.toLowerCase() as 'get' | 'post'](path);
      expect(res.status, route).not.toBe(404);
      expect(res.body, route).not.toEqual(NOT_FOUND);
    }
  });

  it('serves the document at /openapi.json and a reference at /docs', async () => {
    const res = await request(app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body).toEqual(plain(openApiDocument));

    const page = await request(app).get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<div id="swagger-ui">');
    const bundle = await request(app).get('/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
  });

  it('records real answers with their route, status and headers', async () => {
    const before = recordedResponses().length;
    await request(app)
      .get('/api/user/me')
      .set(bearer('0'.repeat(64)));
    await request(app)
      .post('/api/user/login')
      .set('Content-Type', 'application/json')
      .send('{"username":');
    expect(recordedResponses().slice(before)).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/api/user/me',
        status: 401,
        body: { code: 401, message: 'Token无效或已过期,请重新登录' },
      }),
      // The body parser fails before any route matches: the request's path stands in.
      expect.objectContaining({
        method: 'POST',
        path: '/api/user/login',
        status: 400,
        body: { code: 400, message: '请求体不是合法的JSON (body)' },
      }),
    ]);
    expect(recordedResponses().at(-1)?.headers['x-request-id']).toEqual(expect.any(String));
  });
});
