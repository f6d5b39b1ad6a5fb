import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteStores } from './support/suite-setup.js';
import {
  allKeys,
  bearer,
  buildApp,
  countUsers,
  INVALID_TOKEN,
  login,
  NO_TOKEN,
  registerUser,
  WRONG_CREDENTIALS,
} from './support/test-app.js';

const NOT_JSON = { code: 400, message: '请求体不是合法的JSON (body)' };
const NOT_OBJECT = { code: 400, message: 'body: 请求体须为JSON对象' };
const ROUTES = ['/api/user/register', '/api/user/login', '/api/user/change-password'];

const stores = suiteStores();
let app: ReturnType<typeof buildApp>['app'];
let token: string;
let baseline: { users: number; sessions: string[] };

const sessionKeys = async () =>
  (await allKeys(stores.redis)).filter((key) => !key.startsWith('auth:login-failures:'));

beforeAll(async () => {
  app = buildApp(stores).app;
  const account = await registerUser(app, 'hostile_owner');
  token = await login(app, account.username, account.password);
  baseline = { users: await countUsers(stores.pool), sessions: await sessionKeys() };
});

describe('hostile input', () => {
  afterAll(async () => {
    // Nothing of all this wrote a user or a session.
    expect(await countUsers(stores.pool)).toBe(baseline.users);
    expect(await sessionKeys()).toEqual(baseline.sessions);
  });

  it.each(ROUTES)('%s: malformed JSON gets 400', async (route) => {
    for (const raw of [
      '{"username": "a",',
      "{'username': 'a'}",
      '{"a":1}}',
      'undefined',
      '"text"',
    ]) {
      const res = await request(app)
        .post(route)
        .set(bearer(token))
        .set('Content-Type', 'application/json')
        .send(raw);
      expect(res.status, raw).toBe(400);
      expect(res.body).toEqual(NOT_JSON);
    }
  });

  it.each([
    ['get', '/api/user/status'],
    ['get', '/api/user/me'],
    ['post', '/api/user/logout'],
  ] as const)(
    '%s %s takes no body, yet refuses one sent as JSON that is not JSON',
    async (method, route) => {
      const res = await request(app)
        [method](route)
        .set(bearer(token))
        .set('Content-Type', 'application/json')
        .send('{"username": "a",');
      expect(res.status).toBe(400);
      expect(res.body).toEqual(NOT_JSON);
    },
  );

  it.each(ROUTES)(
    '%s: a body that is not a JSON object gets 400 naming the body',
    async (route) => {
      const bodies: [string, string][] = [
        ['application/json', '["a","b"]'],
        ['application/json', 'null'],
        ['text/plain', 'username=a&password=b'],
        ['application/x-www-form-urlencoded', 'username=a&password=b'],
      ];
      for (const [type, raw] of bodies) {
        const res = await request(app)
          .post(route)
          .set(bearer(token))
          .set('Content-Type', type)
          .send(raw);
        expect(res.status, `${type} ${raw}`).toBe(400);
        expect(res.body).toEqual(raw === 'null' ? NOT_JSON : NOT_OBJECT);
      }
    },
  );

  it.each(ROUTES)('%s: a body over 100 kB gets 413', async (route) => {
    const res = await request(app)
      .post(route)
      .set(bearer(token))
      .send({ username: 'x'.repeat(120_000), password: 'y', oldPassword: 'y', newPassword: 'z' });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ code: 413, message: '请求体过大' });
  });

  it('answers wrong types with 400 naming the field', async () => {
    for (const value of [42, true, null, ['admin'], { $gt: '' }]) {
      const register = await request(app)
        .post('/api/user/register')
        .send({ username: value, password: 'long-enough' });
      expect(register.body).toEqual({ code: 400, message: 'username: 用户名须为字符串' });
      const loginRes = await request(app)
        .post('/api/user/login')
        .send({ username: 'hostile_owner', password: value });
      expect(loginRes.body).toEqual({ code: 400, message: 'password: 密码须为字符串' });
    }
  });

  it('answers overlong usernames and passwords with 400', async () => {
    const long = 'a'.repeat(50_000);
    expect(
      (
        await request(app)
          .post('/api/user/register')
          .send({ username: long, password: 'x'.repeat(8) })
      ).body,
    ).toEqual({
      code: 400,
      message: 'username: 用户名须为3到32位字母、数字或_.-',
    });
    expect(
      (await request(app).post('/api/user/login').send({ username: long, password: 'x' })).body,
    ).toEqual({
      code: 400,
      message: 'username: 用户名须为1到128个字符',
    });
    expect(
      (
        await request(app)
          .post('/api/user/login')
          .send({ username: 'hostile_owner', password: long })
      ).body,
    ).toEqual({
      code: 400,
      message: 'password: 密码须为1到128个字符',
    });
    const change = await request(app)
      .post('/api/user/change-password')
      .set(bearer(token))
      .send({ oldPassword: long, newPassword: long });
    expect(change.body).toEqual({
      code: 400,
      message: 'oldPassword: 原密码须为1到128个字符; newPassword: 新密码须为8到128个字符',
    });
  });

  it('treats injection-shaped credentials as plain text', async () => {
    const shapes = [
      "' OR '1'='1",
      "hostile_owner' -- ",
      'hostile_owner"; DROP TABLE users; --',
      '%',
      '_%',
      '*',
      '\\',
      'hostile_owner\u0000',
      '\r\nFLUSHALL\r\n',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style payload, meant literally
      '${jndi:ldap://x}',
      '<script>alert(1)</script>',
      '{"$ne": null}',
    ];
    for (const shape of shapes) {
      const res = await request(app)
        .post('/api/user/login')
        .send({ username: shape, password: shape });
      expect(res.status, shape).toBe(401);
      expect(res.body).toEqual(WRONG_CREDENTIALS);
      const register = await request(app)
        .post('/api/user/register')
        .send({ username: shape, password: `${shape}-long-enough` });
      expect(register.status, shape).toBe(400);
      expect(register.body).toEqual({
        code: 400,
        message: 'username: 用户名须为3到32位字母、数字或_.-',
      });
    }
    const res = await request(app)
      .post('/api/user/login')
      .send({ username: 'hostile_owner', password: "' OR '1'='1" });
    expect(res.body).toEqual(WRONG_CREDENTIALS);
  });

  it('answers non-ASCII, oversized and queue-key-shaped tokens with 401', async () => {
    const latin1 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    const tokens = [
      latin1('令牌'.repeat(16)),
      'é'.repeat(64),
      'a'.repeat(10_000),
      `${'0'.repeat(63)}\u00ff`,
      'bull:judge:id',
      '*',
      '../../etc/passwd',
    ];
    for (const value of tokens) {
      for (const headers of [bearer(value), { token: value }]) {
        const res = await request(app).get('/api/user/me').set(headers);
        expect(res.status).toBe(401);
        expect(res.body).toEqual(INVALID_TOKEN);
        const status = await request(app).get('/api/user/status').set(headers);
        expect(status.body).toEqual({ code: 200, message: '获取成功', data: { loggedIn: false } });
      }
    }
  });

  it('answers headers beyond the server limit with 431 and keeps serving', async () => {
    const res = await request(app)
      .get('/api/user/me')
      .set(bearer('a'.repeat(20_000)));
    expect(res.status).toBe(431);
    expect((await request(app).get('/api/user/me')).body).toEqual(NO_TOKEN);
  });

  it('ignores extra fields and prototype keys in the body', async () => {
    const res = await request(app)
      .post('/api/user/login')
      .set('Content-Type', 'application/json')
      .send(
        '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}, "username": "nobody_here", "password": "x", "roles": "admin"}',
      );
    expect(res.body).toEqual(WRONG_CREDENTIALS);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});
