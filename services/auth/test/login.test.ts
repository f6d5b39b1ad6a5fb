import { createHash } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allKeys,
  buildApp,
  login,
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

let stores: Stores;
beforeAll(async () => {
  stores = await openStores();
});
afterAll(() => stores.close());

const postLogin = (app: Parameters<typeof request>[0], body: unknown) =>
  request(app)
    .post('/api/user/login')
    .send(body as object);

async function insertLegacyUser(username: string, password: string): Promise<number> {
  const [result] = await stores.pool.query('INSERT INTO users (username, password) VALUES (?, ?)', [
    username,
    md5(password),
  ]);
  return (result as { insertId: number }).insertId;
}

describe.each(SCHEMES)('POST /api/user/login (TOKEN_SCHEME=%s)', (scheme) => {
  const ttl = 3600;
  let app: ReturnType<typeof buildApp>['app'];
  beforeAll(() => {
    app = buildApp(stores, { tokenScheme: scheme, tokenTtl: ttl }).app;
  });

  it('answers the token and its lifetime, and writes the session with the full TOKEN_TTL', async () => {
    const { username, password } = await registerUser(app);
    const res = await postLogin(app, { username, password });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      message: '登录成功',
      data: { token: expect.any(String), expiresIn: ttl },
    });
    const { token } = res.body.data;

    if (scheme === 'md5') {
      expect(token).toBe(md5(username + password));
      expect(await stores.redis.get(token)).toBe(username);
      expect(await stores.redis.ttl(token)).toBeGreaterThan(ttl - 3);
    } else {
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      const key = `session:${sha256(token)}`;
      expect(await stores.redis.get(key)).toBe(username);
      expect(await stores.redis.ttl(key)).toBeGreaterThan(ttl - 3);
      const index = `session:user:${username.toLowerCase()}`;
      expect(await stores.redis.smembers(index)).toEqual([sha256(token)]);
      expect(await stores.redis.ttl(index)).toBeGreaterThan(ttl - 3);
    }
  });

  if (scheme === 'random') {
    it('keeps only SHA-256 hashes in Redis: no key, value or member holds a token', async () => {
      const { username, password } = await registerUser(app);
      const tokens = [await login(app, username, password), await login(app, username, password)];
      expect(tokens[0]).not.toBe(tokens[1]);
      const stored: string[] = [];
      for (const key of await allKeys(stores.redis)) {
        stored.push(key);
        const type = await stores.redis.type(key);
        if (type === 'string') stored.push((await stores.redis.get(key)) as string);
        if (type === 'set') stored.push(...(await stores.redis.smembers(key)));
      }
      for (const token of tokens) {
        expect(stored.some((text) => text.includes(token))).toBe(false);
        expect(stored).toContain(`session:${sha256(token)}`);
      }
      expect(
        (await stores.redis.smembers(`session:user:${username.toLowerCase()}`)).sort(),
      ).toEqual(tokens.map(sha256).sort());
    });
  }

  if (scheme === 'md5') {
    it('gives the same token on every login and writes the full lifetime again', async () => {
      const { username, password } = await registerUser(app);
      const first = await login(app, username, password);
      await stores.redis.expire(first, 20);
      const second = await login(app, username, password);
      expect(second).toBe(first);
      expect(await stores.redis.ttl(first)).toBeGreaterThan(ttl - 3);
      expect(await allKeys(stores.redis)).not.toContain(`session:${sha256(first)}`);
    });

    it('logs a warning at start that md5 tokens reveal the password', () => {
      const { logs } = buildApp(stores, { tokenScheme: 'md5' });
      const warnings = logs.entries().filter((entry) => entry.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toContain('TOKEN_SCHEME=md5');
      expect(warnings[0]?.msg).toContain('brute-force');
    });
  } else {
    it('logs no scheme warning in random mode', () => {
      const { logs } = buildApp(stores, { tokenScheme: 'random' });
      expect(logs.entries().filter((entry) => entry.level === 40)).toEqual([]);
    });
  }

  it('finds the user in any letter case and uses the stored spelling from then on', async () => {
    const { username, password } = await registerUser(app, uniqueName('MiXed'));
    const res = await postLogin(app, { username: username.toUpperCase(), password });
    expect(res.status).toBe(200);
    const { token } = res.body.data;
    const status = await request(app).get('/api/user/status').set('token', token);
    expect(status.body.data).toMatchObject({ loggedIn: true, username });
    if (scheme === 'md5') expect(token).toBe(md5(username + password));
  });

  it('answers one 401 message for a wrong password and for an unknown user, and writes no session', async () => {
    const { username, password } = await registerUser(app);
    const before = (await allKeys(stores.redis)).filter((key) => !key.startsWith('auth:'));
    const attempts = [
      { username, password: `${password}x` },
      { username, password: password.toUpperCase() },
      { username: uniqueName('ghost'), password },
      { username: `${username} `, password },
    ];
    for (const body of attempts) {
      const res = await postLogin(app, body);
      expect(res.status, JSON.stringify(body)).toBe(401);
      expect(res.body).toEqual(WRONG_CREDENTIALS);
    }
    const after = (await allKeys(stores.redis)).filter((key) => !key.startsWith('auth:'));
    expect(after).toEqual(before);
  });

  it('logs in an account of the old system (MD5 digest, long name) and rehashes it with scrypt', async () => {
    const username = `Old System User ${uniqueName()} with a name far beyond thirty-two characters`;
    const id = await insertLegacyUser(username, 'abc');

    const wrong = await postLogin(app, { username, password: 'abd' });
    expect(wrong.body).toEqual(WRONG_CREDENTIALS);
    expect(await passwordOf(stores.pool, id)).toBe(md5('abc'));

    const res = await postLogin(app, { username, password: 'abc' });
    expect(res.status).toBe(200);
    if (scheme === 'md5') expect(res.body.data.token).toBe(md5(`${username}abc`));
    expect(await passwordOf(stores.pool, id)).toMatch(/^scrypt\$16384\$8\$1\$/);

    expect((await postLogin(app, { username, password: 'abc' })).status).toBe(200);
    expect((await postLogin(app, { username, password: 'abd' })).body).toEqual(WRONG_CREDENTIALS);
  });

  it('leaves the MD5 digest in place with PASSWORD_REHASH=false, for an old backend reading the table', async () => {
    const { app: keepMd5 } = buildApp(stores, { tokenScheme: scheme, passwordRehash: false });
    const username = uniqueName('legacy');
    const id = await insertLegacyUser(username, 'legacy-pass');
    expect((await postLogin(keepMd5, { username, password: 'legacy-pass' })).status).toBe(200);
    expect(await passwordOf(stores.pool, id)).toBe(md5('legacy-pass'));
  });
});

describe('login input rules', () => {
  let app: ReturnType<typeof buildApp>['app'];
  beforeAll(() => {
    app = buildApp(stores).app;
  });

  it.each([
    [{ username: '', password: 'x' }, 'username: 用户名须为1到128个字符'],
    [{ username: 'u'.repeat(129), password: 'x' }, 'username: 用户名须为1到128个字符'],
    [{ username: 'someone', password: '' }, 'password: 密码须为1到128个字符'],
    [{ username: 'someone', password: 'p'.repeat(129) }, 'password: 密码须为1到128个字符'],
    [{ username: ['someone'], password: 'x' }, 'username: 用户名须为字符串'],
    [{ username: 'someone', password: { $ne: 1 } }, 'password: 密码须为字符串'],
    [{ username: 'someone' }, 'password: 缺少密码'],
    [{}, 'username: 缺少用户名; password: 缺少密码'],
  ])('answers 400 naming the field for %j, counting no failure', async (body, message) => {
    const res = await postLogin(app, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
    expect(await stores.redis.keys('auth:login-failures:*someone*')).toEqual([]);
  });

  it('accepts 128-character credentials, which the old system may hold', async () => {
    const username = `${uniqueName('long')}`.padEnd(128, 'n');
    const password = '长'.repeat(128);
    await stores.pool.query('INSERT INTO users (username, password) VALUES (?, ?)', [
      username,
      md5(password),
    ]);
    const res = await postLogin(app, { username, password });
    expect(res.status).toBe(200);
    const status = await request(app).get('/api/user/status').set('token', res.body.data.token);
    expect(status.body.data).toMatchObject({ loggedIn: true, username });
  });
});

describe('login timing', () => {
  it('costs an unknown user about as much hashing time as a wrong password', async () => {
    const { app } = buildApp(stores, { loginMaxFailures: 1000 });
    const { username } = await registerUser(app);
    const median = async (body: object) => {
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const started = performance.now();
        const res = await postLogin(app, body);
        times.push(performance.now() - started);
        expect(res.body).toEqual(WRONG_CREDENTIALS);
      }
      return times.sort((a, b) => a - b)[3] as number;
    };
    const wrongPassword = await median({ username, password: 'not-the-password' });
    const unknownUser = await median({ username: uniqueName('nobody'), password: 'whatever' });
    // Without the dummy verification an unknown user answers in a few milliseconds.
    expect(wrongPassword).toBeGreaterThan(15);
    expect(unknownUser / wrongPassword).toBeGreaterThan(0.6);
    expect(unknownUser / wrongPassword).toBeLessThan(1.6);
  });
});
