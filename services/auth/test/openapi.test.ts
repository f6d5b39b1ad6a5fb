import { readFileSync } from 'node:fs';
import { openApiPath } from '@svc/common';
import { type RecordedResponse, recordedResponses, undocumentedResponses } from '@svc/test-kit';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { notFoundBody } from '../src/api-docs/responses.docs.js';
import { authOperations, openApiDocument } from '../src/openapi.js';
import { registeredRoutes } from './support/registered-routes.js';
import { suiteApp, suiteStores } from './support/suite-setup.js';
import { bearer, TOO_MANY } from './support/test-app.js';

/** The document as a client receives it. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
const NOT_FOUND = { code: 404, message: 'Not Found' };

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
  const stores = suiteStores();
  const app = suiteApp(stores);

  it('documents exactly the routes the app registers', () => {
    const registered = registeredRoutes(app()).filter((route) => !isSwaggerAsset(route));
    expect(registered).toContain('POST /api/user/change-password');
    expect([...new Set(registered)].sort()).toEqual(documentedRoutes().sort());
  });

  it('serves every documented route', async () => {
    for (const route of documentedRoutes()) {
      const [method, path] = route.split(' ') as [string, string];
      const res = await request(app())[method.toLowerCase() as 'get' | 'post'](path);
      expect(res.status, route).not.toBe(404);
      expect(res.body, route).not.toEqual(NOT_FOUND);
    }
  });

  it.each([
    ['put', '/api/user/login', 'POST'],
    ['post', '/api/user/me', 'GET, HEAD'],
    ['put', '/api/user/sessions', 'DELETE, GET, HEAD'],
    ['get', '/api/user/sessions/abc', 'DELETE'],
    ['delete', '/api/user/security-events', 'GET, HEAD'],
  ] as const)(
    'answers %s %s with a JSON 405 allowing %s, before body and guard',
    async (method, path, allow) => {
      const res = await request(app())
        [method](path)
        .set('Content-Type', 'application/json')
        .send('{"username":');
      expect([res.status, res.body]).toEqual([405, { code: 405, message: 'Method Not Allowed' }]);
      expect(res.headers.allow).toBe(allow);
    },
  );

  it('answers a path no route serves with the JSON 404, whatever the method', async () => {
    const res = await request(app()).put('/api/user/nothing');
    expect([res.status, res.body]).toEqual([404, NOT_FOUND]);
  });

  it('serves the document at /openapi.json and a reference at /docs', async () => {
    const res = await request(app()).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body).toEqual(plain(openApiDocument));

    const page = await request(app()).get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<div id="swagger-ui">');
    const bundle = await request(app()).get('/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
  });

  it('records real answers with their route, status and headers', async () => {
    const before = recordedResponses().length;
    await request(app())
      .get('/api/user/me')
      .set(bearer('0'.repeat(64)));
    await request(app())
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

/** An operation of the document, as far as these tests read it. */
interface PlainOperation {
  parameters: { name: string; in: string; required: boolean }[];
  responses: Record<string, { headers?: Record<string, unknown> }>;
}

describe('the document', () => {
  const operation = (method: string, path: string) =>
    plain(openApiDocument.paths[openApiPath(path)]?.[method]);

  it('has examples its own schemas accept, request bodies included', () => {
    for (const { method, path, body, bodyExample, responses } of authOperations) {
      if (body) expect(body.safeParse(bodyExample).success, `${method} ${path}`).toBe(true);
      for (const [status, response] of Object.entries(responses)) {
        if (!response.schema) continue;
        const where = `${method} ${path} ${status}`;
        expect(response.example, where).toBeDefined();
        expect(response.schema.safeParse(response.example).success, where).toBe(true);
      }
    }
  });

  // The contract's answers, each in the route's documented schema and its example or schema text.
  it.each([
    ['post', '/api/user/register', 409, '用户名已存在'],
    ['post', '/api/user/register', 413, '请求体过大'],
    ['post', '/api/user/register', 503, '服务暂不可用,请稍后重试'],
    ['post', '/api/user/login', 401, '用户名或密码错误'],
    ['post', '/api/user/login', 413, '请求体过大'],
    ['post', '/api/user/login', 429, '登录失败次数过多,请稍后再试'],
    ['post', '/api/user/login', 503, '服务暂不可用,请稍后重试'],
    ['get', '/api/user/status', 503, '服务暂不可用,请稍后重试'],
    ['get', '/api/user/me', 401, '未携带Token,请先登录'],
    ['get', '/api/user/me', 401, 'Token无效或已过期,请重新登录'],
    ['get', '/api/user/me', 503, '服务暂不可用,请稍后重试'],
    ['post', '/api/user/logout', 200, '已退出登录'],
    ['post', '/api/user/logout', 401, '未携带Token,请先登录'],
    ['post', '/api/user/logout', 401, 'Token无效或已过期,请重新登录'],
    ['post', '/api/user/change-password', 200, '密码修改成功,请重新登录'],
    ['post', '/api/user/change-password', 400, '原密码错误'],
    ['post', '/api/user/change-password', 401, '未携带Token,请先登录'],
    ['post', '/api/user/change-password', 401, 'Token无效或已过期,请重新登录'],
    ['post', '/api/user/change-password', 413, '请求体过大'],
    ['post', '/api/user/change-password', 429, '登录失败次数过多,请稍后再试'],
  ] as const)('%s %s %i: %s', (method, path, status, message) => {
    const documented = authOperations.find((o) => o.method === method && o.path === path);
    expect(
      documented?.responses[status]?.schema?.safeParse({ code: status, message }).success,
    ).toBe(true);
    expect(JSON.stringify(operation(method, path).responses[status])).toContain(message);
  });

  it('names the field in every documented validation message', () => {
    for (const path of ['/api/user/register', '/api/user/login', '/api/user/change-password']) {
      const schema = authOperations.find((o) => o.path === path)?.responses[400]?.schema;
      const body = (message: string) => ({ code: 400, message });
      expect(schema?.safeParse(body('请求体不是合法的JSON (body)')).success, path).toBe(true);
      expect(schema?.safeParse(body('缺少用户名')).success, path).toBe(false);
    }
  });

  it('documents the success bodies of the contract', () => {
    const example = (method: string, path: string) =>
      operation(method, path).responses[200].content['application/json'].example;
    expect(example('post', '/api/user/register')).toEqual({
      code: 200,
      message: '注册成功',
      data: { id: 1, username: 'alice' },
    });
    expect(example('post', '/api/user/login')).toMatchObject({
      code: 200,
      message: '登录成功',
      data: { token: expect.any(String), expiresIn: 3600 },
    });
    const status = authOperations.find((o) => o.path === '/api/user/status')?.responses[200];
    for (const data of [{ loggedIn: true, username: 'a', expiresIn: 5 }, { loggedIn: false }]) {
      expect(status?.schema?.safeParse({ code: 200, message: '获取成功', data }).success).toBe(
        true,
      );
    }
    expect(example('get', '/api/user/me')).toEqual({
      code: 200,
      message: '获取成功',
      data: { username: 'alice', totp: false },
    });
    expect(operation('get', '/readyz').responses[503].content['application/json'].example).toEqual({
      code: 503,
      message: '服务暂不可用,请稍后重试',
      data: { redis: 'down', mysql: 'up' },
    });
  });

  it('documents the token headers of the guarded routes and of status', () => {
    const schemes = plain(openApiDocument.components).securitySchemes;
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.token).toMatchObject({ type: 'apiKey', in: 'header', name: 'token' });
    const required = [{ bearer: [] }, { token: [] }];
    expect(operation('get', '/api/user/me').security).toEqual(required);
    expect(operation('post', '/api/user/logout').security).toEqual(required);
    expect(operation('post', '/api/user/change-password').security).toEqual(required);
    expect(operation('get', '/api/user/status').security).toEqual([{}, ...required]);
    for (const [method, path] of [
      ['post', '/api/user/register'],
      ['post', '/api/user/login'],
      ['get', '/healthz'],
    ]) {
      expect(operation(method!, path!).security, path).toBeUndefined();
    }
  });

  it('documents Retry-After on 429 and X-Request-Id on every answer', () => {
    for (const path of ['/api/user/login', '/api/user/change-password']) {
      const headers = operation('post', path).responses[429].headers;
      expect(headers['Retry-After'].schema.type, path).toBe('integer');
    }
    const paths: Record<string, Record<string, PlainOperation>> = plain(openApiDocument.paths);
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, entry] of Object.entries(operations)) {
        expect(entry.parameters, `${method} ${path}`).toContainEqual(
          expect.objectContaining({ name: 'X-Request-Id', in: 'header', required: false }),
        );
        for (const [status, response] of Object.entries(entry.responses)) {
          expect(response.headers?.['X-Request-Id'], `${method} ${path} ${status}`).toBeDefined();
        }
      }
    }
  });

  it('documents the JSON 404 of unknown routes', () => {
    const notFound = plain(openApiDocument.components).responses.NotFound;
    expect(notFound.content['application/json'].example).toEqual(NOT_FOUND);
  });
});

describe('checking answers against the document', () => {
  const answer = (overrides: Partial<RecordedResponse>): RecordedResponse => ({
    method: 'POST',
    path: '/api/user/login',
    status: 200,
    headers: { 'x-request-id': 'r-1' },
    body: {
      code: 200,
      message: '登录成功',
      data: { token: 'a'.repeat(64), expiresIn: 3600, deviceToken: 'd'.repeat(50) },
    },
    ...overrides,
  });
  const check = (overrides: Partial<RecordedResponse>) =>
    undocumentedResponses([answer(overrides)], authOperations, notFoundBody);

  it('accepts an answer as documented, and the JSON 404 of an unknown path', () => {
    expect(check({})).toEqual([]);
    expect(check({ method: 'GET', path: '/api/nothing', status: 404, body: NOT_FOUND })).toEqual(
      [],
    );
    expect(
      check({
        status: 429,
        headers: { 'x-request-id': 'r', 'retry-after': '900' },
        body: TOO_MANY,
      }),
    ).toEqual([]);
  });

  it.each<[string, Partial<RecordedResponse>]>([
    ['a body missing a field', { body: { code: 200, message: '登录成功', data: { token: 'a' } } }],
    [
      'a key the document does not list',
      {
        path: '/api/user/me',
        method: 'GET',
        body: { code: 200, message: '获取成功', data: { username: 'a', roles: 'admin' } },
      },
    ],
    ['another message text', { status: 401, body: { code: 401, message: '用户名已存在' } }],
    ['an undocumented status', { status: 500, body: { code: 500, message: '服务器内部错误' } }],
    ['an undocumented route', { path: '/api/user/delete', body: { code: 200, message: 'ok' } }],
    ['a documented header missing', { status: 429, body: TOO_MANY }],
    ['no request id', { headers: {} }],
  ])('flags %s', (_case, overrides) => {
    expect(check(overrides)).toHaveLength(1);
  });
});
