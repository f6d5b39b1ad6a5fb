import { createHash } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../src/users/password.js';
import {
  allKeys,
  bearer,
  buildApp,
  INVALID_TOKEN,
  login,
  NO_TOKEN,
  openStores,
  passwordOf,
  registerUser,
  SCHEMES,
  type Stores,
  uniqueName,
  WRONG_CREDENTIALS,
} from './support/test-app.js';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const CHANGED = { code: 200, message: '密码修改成功,请重新登录' };

let stores: Stores;
beforeAll(async () => {
  stores = await openStores();
});
afterAll(() => stores.close());

describe.each(SCHEMES)('POST /api/user/change-password (TOKEN_SCHEME=%s)', (scheme) => {
  const sessionKey = (token: string) => (scheme === 'md5' ? token : `session:${sha256(token)}`);
  let app: ReturnType<typeof buildApp>['app'];
  beforeAll(() => {
    app = buildApp(stores, { tokenScheme: scheme }).app;
  });
  const change = (token: string, body: unknown) =>
    request(app)
      .post('/api/user/change-password')
      .set(bearer(token))
      .send(body as object);

  it('stores the new hash and ends the sessions, so only the new password logs in', async () => {
    const { id, username, password } = await registerUser(app);
    const token = await login(app, username, password);
    const other = scheme === 'random' ? await login(app, username, password) : token;

    const res = await change(token, { oldPassword: password, newPassword: 'brand-new-secret' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(CHANGED);

    expect(await stores.redis.exists(sessionKey(token), sessionKey(other))).toBe(0);
    if (scheme === 'random') {
      expect(await stores.redis.exists(`session:user:${username.toLowerCase()}`)).toBe(0);
    }
    for (const t of [token, other]) {
      expect((await request(app).get('/api/user/me').set(bearer(t))).body).toEqual(INVALID_TOKEN);
    }
    const stored = await passwordOf(stores.pool, id);
    expect(await verifyPassword('brand-new-secret', stored)).toEqual({
      ok: true,
      needsRehash: false,
    });

    const old = await request(app).post('/api/user/login').send({ username, password });
    expect(old.body).toEqual(WRONG_CREDENTIALS);
    const fresh = await login(app, username, 'brand-new-secret');
    if (scheme === 'md5') {
      expect(fresh).toBe(md5(`${username}brand-new-secret`));
      expect(fresh).not.toBe(token);
    }
    expect((await request(app).get('/api/user/me').set(bearer(fresh))).status).toBe(200);
  });

  if (scheme === 'random') {
    it("revokes only this user's sessions", async () => {
      const alice = await registerUser(app);
      const bob = await registerUser(app);
      const aliceToken = await login(app, alice.username, alice.password);
      const bobToken = await login(app, bob.username, bob.password);
      const res = await change(aliceToken, {
        oldPassword: alice.password,
        newPassword: 'another-secret',
      });
      expect(res.body).toEqual(CHANGED);
      expect((await request(app).get('/api/user/me').set(bearer(bobToken))).status).toBe(200);
      expect(await stores.redis.smembers(`session:user:${bob.username.toLowerCase()}`)).toEqual([
        sha256(bobToken),
      ]);
    });
  }

  it('answers 400 for a wrong old password and changes nothing', async () => {
    const { id, username, password } = await registerUser(app);
    const token = await login(app, username, password);
    const before = await passwordOf(stores.pool, id);
    const res = await change(token, { oldPassword: 'not-my-password', newPassword: 'whatever-1' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: '原密码错误' });
    expect(await passwordOf(stores.pool, id)).toBe(before);
    expect((await request(app).get('/api/user/me').set(bearer(token))).status).toBe(200);
  });

  it.each([
    [{ oldPassword: 'x', newPassword: 'short' }, 'newPassword: 新密码须为8到128个字符'],
    [{ oldPassword: 'x', newPassword: 'n'.repeat(129) }, 'newPassword: 新密码须为8到128个字符'],
    [{ newPassword: 'long-enough' }, 'oldPassword: 缺少原密码'],
    [{ oldPassword: '', newPassword: 'long-enough' }, 'oldPassword: 原密码须为1到128个字符'],
    [
      { oldPassword: 1, newPassword: true },
      'oldPassword: 原密码须为字符串; newPassword: 新密码须为字符串',
    ],
    [{ password: 'x', newPass: 'y' }, 'oldPassword: 缺少原密码; newPassword: 缺少新密码'],
  ])('answers 400 naming the field for %j and changes nothing', async (body, message) => {
    const { id, username, password } = await registerUser(app);
    const token = await login(app, username, password);
    const before = await passwordOf(stores.pool, id);
    const res = await change(token, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
    expect(await passwordOf(stores.pool, id)).toBe(before);
    expect(await stores.redis.exists(sessionKey(token))).toBe(1);
  });

  it('answers 401 without a token, before looking at the body', async () => {
    const res = await request(app)
      .post('/api/user/change-password')
      .send({ oldPassword: 'a', newPassword: 'b' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NO_TOKEN);
  });

  it('changes the password of an account from the old system', async () => {
    const username = uniqueName('Legacy');
    await stores.pool.query('INSERT INTO users (username, password) VALUES (?, ?)', [
      username,
      md5('old'),
    ]);
    const { app: keepMd5 } = buildApp(stores, { tokenScheme: scheme, passwordRehash: false });
    const token = await login(keepMd5, username, 'old');
    const res = await request(keepMd5)
      .post('/api/user/change-password')
      .set(bearer(token))
      .send({ oldPassword: 'old', newPassword: 'modern-password' });
    expect(res.body).toEqual(CHANGED);
    expect(await login(keepMd5, username.toLowerCase(), 'modern-password')).toMatch(/^[0-9a-f]+$/);
  });

  it('writes nothing but its own keys', async () => {
    const keys = await allKeys(stores.redis);
    // Both schemes' tests share the file's Redis.
    const layout =
      /^(session:[0-9a-f]{64}|session:user:.+|[0-9a-f]{32}|\{(session:[0-9a-f]{64}|[0-9a-f]{32})\}:meta|auth:login-failures:.+)$/;
    for (const key of keys) expect(key).toMatch(layout);
  });
});
