import type { RowDataPacket } from '@svc/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../src/users/password.js';
import {
  allKeys,
  buildApp,
  countUsers,
  openStores,
  type Stores,
  uniqueName,
} from './support/test-app.js';

describe('POST /api/user/register', () => {
  let stores: Stores;
  let app: ReturnType<typeof buildApp>['app'];
  beforeAll(async () => {
    stores = await openStores();
    app = buildApp(stores).app;
  });
  afterAll(() => stores.close());

  const register = (body: unknown) =>
    request(app)
      .post('/api/user/register')
      .send(body as object);
  const rowsNamed = async (username: string) =>
    (
      await stores.pool.query<RowDataPacket[]>(
        'SELECT id, username, password, roles, create_time FROM users WHERE username = ?',
        [username],
      )
    )[0];

  it('creates the user with a salted scrypt hash and the default role, and writes no session', async () => {
    const username = uniqueName('Reg');
    const res = await register({ username, password: 'correct horse' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      message: '注册成功',
      data: { id: expect.any(Number), username },
    });

    const [row, ...others] = await rowsNamed(username);
    expect(others).toEqual([]);
    expect(row).toMatchObject({ id: res.body.data.id, username, roles: 'user' });
    expect(row?.create_time).toBeInstanceOf(Date);
    expect(row?.password).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(row?.password).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', row?.password)).toEqual({
      ok: true,
      needsRehash: false,
    });
    expect(await allKeys(stores.redis)).toEqual([]);
  });

  it('salts each hash: the same password gives two different stored values', async () => {
    const a = await register({ username: uniqueName(), password: 'same password' });
    const b = await register({ username: uniqueName(), password: 'same password' });
    const [[rowA], [rowB]] = await Promise.all([
      rowsNamed(a.body.data.username),
      rowsNamed(b.body.data.username),
    ]);
    expect(rowA?.password).not.toBe(rowB?.password);
  });

  it('refuses a name that exists in any letter case with 409 and writes nothing', async () => {
    const username = uniqueName('Alice');
    expect((await register({ username, password: 'password-1' })).status).toBe(200);
    const before = await countUsers(stores.pool);

    for (const taken of [username, username.toLowerCase(), username.toUpperCase()]) {
      const res = await register({ username: taken, password: 'password-2' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ code: 409, message: '用户名已存在' });
    }
    expect(await countUsers(stores.pool)).toBe(before);
    const [row] = await rowsNamed(username);
    expect(row?.username).toBe(username);
    expect((await verifyPassword('password-1', row?.password)).ok).toBe(true);
  });

  it('lets exactly one of parallel registrations of one name win; the others get 409', async () => {
    const username = uniqueName('race');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        register({
          username: i % 2 ? username.toUpperCase() : username,
          password: `password-${i}`,
        }),
      ),
    );
    expect(results.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    for (const res of results.filter((r) => r.status === 409)) {
      expect(res.body).toEqual({ code: 409, message: '用户名已存在' });
    }
    expect(await rowsNamed(username)).toHaveLength(1);
  });

  it('accepts the bounds of the rules: 3 and 32 characters of [A-Za-z0-9_.-], passwords of 8 and 128 characters', async () => {
    const suffix = uniqueName('').slice(1, 7);
    const cases = [
      { username: `a.${suffix.slice(0, 1)}`, password: '12345678' },
      { username: `Z-_.${suffix}`.padEnd(32, '9'), password: 'x'.repeat(128) },
      { username: `pw_${suffix}`, password: '密'.repeat(128) },
      { username: `emo_${suffix}`, password: '🙂'.repeat(128) },
    ];
    for (const body of cases) {
      const res = await register(body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body.data.username).toBe(body.username);
    }
  });

  it.each([
    [{ username: 'ab', password: 'password-1' }, 'username: 用户名须为3到32位字母、数字或_.-'],
    [
      { username: 'a'.repeat(33), password: 'password-1' },
      'username: 用户名须为3到32位字母、数字或_.-',
    ],
    [
      { username: 'has space', password: 'password-1' },
      'username: 用户名须为3到32位字母、数字或_.-',
    ],
    [
      { username: '用户名abc', password: 'password-1' },
      'username: 用户名须为3到32位字母、数字或_.-',
    ],
    [{ username: 'a/b/c', password: 'password-1' }, 'username: 用户名须为3到32位字母、数字或_.-'],
    [{ username: 'abc\n', password: 'password-1' }, 'username: 用户名须为3到32位字母、数字或_.-'],
    [{ username: 'valid_name', password: '1234567' }, 'password: 密码须为8到128个字符'],
    [{ username: 'valid_name', password: 'x'.repeat(129) }, 'password: 密码须为8到128个字符'],
    [{ username: 'valid_name', password: '🙂'.repeat(129) }, 'password: 密码须为8到128个字符'],
    [{ password: 'password-1' }, 'username: 缺少用户名'],
    [{ username: 'valid_name' }, 'password: 缺少密码'],
    [{ username: 12345, password: 'password-1' }, 'username: 用户名须为字符串'],
    [{ username: 'valid_name', password: 12345678 }, 'password: 密码须为字符串'],
    [{ username: null, password: null }, 'username: 用户名须为字符串; password: 密码须为字符串'],
    [{}, 'username: 缺少用户名; password: 缺少密码'],
    [['valid_name', 'password-1'], 'body: 请求体须为JSON对象'],
  ])('answers 400 naming the field for %j', async (body, message) => {
    const before = await countUsers(stores.pool);
    const res = await register(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
    expect(await countUsers(stores.pool)).toBe(before);
  });
});
