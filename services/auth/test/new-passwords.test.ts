import type { RowDataPacket } from '@svc/common';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../src/config.js';
import { hashPassword } from '../src/users/password.js';
import { suiteApp, suiteStores } from './support/suite-setup.js';
import {
  allKeys,
  bearer,
  countUsers,
  login,
  passwordOf,
  registerUser,
  uniqueName,
} from './support/test-app.js';

/*
 * New passwords (register, change password) too common, too easily guessed or
 * holding the username are refused with 400, writing nothing and counting
 * nothing; logins are never judged.
 */
const TOO_COMMON = { code: 400, message: '密码过于常见,请换一个' };
const TOO_GUESSABLE = {
  code: 400,
  message: '密码过于简单,容易被猜到,请换一个更长或更少规律的密码',
};
const HAS_USERNAME = { code: 400, message: '密码不能包含用户名' };
const STRONG = 'Bluefinch-Orbit-42';
/** One refusal more than the failed logins that lock a pair. */
const PAST_THE_LOCK = defaultSettings.loginMaxFailures + 1;

const stores = suiteStores();
const app = suiteApp(stores);

const register = (body: object) => request(app()).post('/api/user/register').send(body);
const change = (token: string, body: object) =>
  request(app()).post('/api/user/change-password').set(bearer(token)).send(body);

async function eventsOf(userId: number): Promise<string[]> {
  const [rows] = await stores.pool.query<RowDataPacket[]>(
    'SELECT type FROM security_events WHERE user_id = ? ORDER BY id',
    [userId],
  );
  return rows.map((row) => row.type as string);
}

describe('POST /api/user/register with a weak password', () => {
  it.each([
    ['password', TOO_COMMON],
    ['123456789', TOO_COMMON],
    ['qwerty123', TOO_COMMON],
    ['abcdefgh', TOO_GUESSABLE],
  ])('refuses %s with 400 and writes nothing', async (password, refusal) => {
    const users = await countUsers(stores.pool);
    const keys = await allKeys(stores.redis);
    const res = await register({ username: uniqueName('weak'), password });
    expect([res.status, res.body]).toEqual([400, refusal]);
    expect(await countUsers(stores.pool)).toBe(users);
    expect(await allKeys(stores.redis)).toEqual(keys);
  });

  it('refuses a password holding the username, in any letter case', async () => {
    const suffix = uniqueName('').slice(1, 6);
    const username = `zhangwei${suffix}`;
    for (const password of [`${username}2024`, `${username.replace('z', 'Z')}-fine-9x`]) {
      const res = await register({ username, password });
      expect([res.status, res.body], password).toEqual([400, HAS_USERNAME]);
    }
    expect((await register({ username: 'zhangwei', password: 'zhangwei2024' })).body).toEqual(
      HAS_USERNAME,
    );
  });

  it('accepts a strong password', async () => {
    const username = uniqueName('strong');
    const res = await register({ username, password: STRONG });
    expect(res.body).toMatchObject({ code: 200, message: '注册成功', data: { username } });
    expect(await login(app(), username, STRONG)).toEqual(expect.any(String));
  });

  it("refuses a weak password for a taken name before checking it as the register's retry, counting nothing", async () => {
    const { username, password } = await registerUser(app());
    const keys = await allKeys(stores.redis);
    for (let i = 0; i < PAST_THE_LOCK; i++) {
      const res = await register({ username, password: 'password' });
      expect([res.status, res.body]).toEqual([400, TOO_COMMON]);
    }
    expect(await allKeys(stores.redis)).toEqual(keys);
    expect(await login(app(), username, password)).toEqual(expect.any(String));
  });
});

describe('POST /api/user/change-password with a weak new password', () => {
  it('refuses it with 400, writing nothing: the old password still logs in, no password_changed', async () => {
    const { id, username, password } = await registerUser(app());
    const token = await login(app(), username, password);
    const stored = await passwordOf(stores.pool, id);
    const events = await eventsOf(id);
    const keys = await allKeys(stores.redis);
    for (const [newPassword, refusal] of [
      ['password', TOO_COMMON],
      ['12345678', TOO_COMMON],
      ['aaaaaaaaaaaa', TOO_GUESSABLE],
      [`${username.toUpperCase()}-Kq7#vM2p`, HAS_USERNAME],
    ] as const) {
      const res = await change(token, { oldPassword: password, newPassword });
      expect([res.status, res.body], newPassword).toEqual([400, refusal]);
    }
    expect(await passwordOf(stores.pool, id)).toBe(stored);
    expect(await eventsOf(id)).toEqual(events);
    expect(events).not.toContain('password_changed');
    expect(await allKeys(stores.redis)).toEqual(keys);
    expect((await request(app()).get('/api/user/me').set(bearer(token))).status).toBe(200);
    expect(await login(app(), username, password)).toEqual(expect.any(String));
  });

  it('does not count a refusal as a guess of the old password, right or wrong', async () => {
    const { username, password } = await registerUser(app());
    const token = await login(app(), username, password);
    for (let i = 0; i < PAST_THE_LOCK; i++) {
      const oldPassword = i % 2 ? password : 'not-my-password';
      const res = await change(token, { oldPassword, newPassword: 'password' });
      expect([res.status, res.body]).toEqual([400, TOO_COMMON]);
    }
    const res = await change(token, { oldPassword: password, newPassword: STRONG });
    expect(res.body).toEqual({ code: 200, message: '密码修改成功,请重新登录' });
    expect(await login(app(), username, STRONG)).toEqual(expect.any(String));
  });
});

describe('POST /api/user/login of an account whose password is weak', () => {
  it('logs in as before: logins are not judged', async () => {
    const username = uniqueName('weakold');
    const hash = await hashPassword('password');
    await stores.pool.query('INSERT INTO users (username, password) VALUES (?, ?)', [
      username,
      hash,
    ]);
    const res = await request(app())
      .post('/api/user/login')
      .send({ username, password: 'password' });
    expect(res.body).toMatchObject({
      code: 200,
      message: '登录成功',
      data: { token: expect.any(String) },
    });
  });
});
