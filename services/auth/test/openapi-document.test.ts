import { openApiPath } from '@svc/common';
import { describe, expect, it } from 'vitest';
import { authOperations, openApiDocument } from '../src/openapi.js';

/** The document as a client receives it. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
const NOT_FOUND = { code: 404, message: 'Not Found' };

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
      data: { username: 'alice' },
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
