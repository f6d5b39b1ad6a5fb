import { type RecordedResponse, undocumentedResponses } from '@svc/test-kit';
import { describe, expect, it } from 'vitest';
import { notFoundBody } from '../src/api-docs/responses.docs.js';
import { authOperations } from '../src/openapi.js';
import { TOO_MANY } from './support/test-app.js';

const NOT_FOUND = { code: 404, message: 'Not Found' };

describe('checking answers against the document', () => {
  const answer = (overrides: Partial<RecordedResponse>): RecordedResponse => ({
    method: 'POST',
    path: '/api/user/login',
    status: 200,
    headers: { 'x-request-id': 'r-1' },
    body: { code: 200, message: '登录成功', data: { token: 'a'.repeat(64), expiresIn: 3600 } },
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
