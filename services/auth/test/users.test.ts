import { createHash } from 'node:crypto';
import { connectRedis, type RowDataPacket } from '@svc/common';
import { createTestSession } from '@svc/session-guard';
import { startRedisServer } from '@svc/test-kit';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../src/users/password.js';
import { layoutOf } from './support/sessions.js';
import { suiteApp, suiteStores } from './support/suite-setup.js';
import {
  allKeys,
  bearer,
  buildApp,
  countUsers,
  DEVICE_TOKEN,
  INVALID_TOKEN,
  login,
  NO_TOKEN,
  passwordOf,
  registerUser,
  SCHEMES,
  sleep,
  UNAVAILABLE,
  uniqueName,
  WRONG_CREDENTIALS,
} from './support/test-app.js';

/*
 * The user routes, one describe per route, each on a MySQL and a Redis database
 * of its own (some assert every key the route leaves).
 */
const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const LOGGED_OUT = { code: 200, message: '获取成功', data: { loggedIn: false } };
const CHANGED = { code: 200, message: '密码修改成功,请重新登录' };

describe('POST /api/user/register', () => {
  const stores = suiteStores();
  const app = suiteApp(stores);

  const register = (body: unknown) =>
    request(app())
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
    expect((await register({ username, password: 'amber-kettle-51' })).status).toBe(200);
    const before = await countUsers(stores.pool);

    for (const taken of [username, username.toLowerCase(), username.toUpperCase()]) {
      const res = await register({ username: taken, password: 'amber-kettle-52' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ code: 409, message: '用户名已存在' });
    }
    expect(await countUsers(stores.pool)).toBe(before);
    const [row] = await rowsNamed(username);
    expect(row?.username).toBe(username);
    expect((await verifyPassword('amber-kettle-51', row?.password)).ok).toBe(true);
  });

  it('lets exactly one of parallel registrations of one name win; the others get 409', async () => {
    const username = uniqueName('race');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        register({
          username: i % 2 ? username.toUpperCase() : username,
          password: `race-amber-kettle-${i}`,
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
      { username: `a.${suffix.slice(0, 1)}`, password: 'Kq7#vM2p' },
      { username: `Z-_.${suffix}`.padEnd(32, '9'), password: 'Kq7#vM2p'.repeat(16) },
      { username: `pw_${suffix}`, password: '密钥长城夜雨灯塔'.repeat(16) },
      { username: `emo_${suffix}`, password: '🙂🚀🌲🎲🍋🐙🎈🦊'.repeat(16) },
    ];
    for (const body of cases) {
      const res = await register(body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body.data.username).toBe(body.username);
    }
  });

  it.each([
    [{ username: 'ab', password: 'olive-lamp' }, 'username: 用户名须为3到32位字母、数字或_.-'],
    [
      { username: 'a'.repeat(33), password: 'olive-lamp' },
      'username: 用户名须为3到32位字母、数字或_.-',
    ],
    [
      { username: 'has space', password: 'olive-lamp' },
      'username: 用户名须为3到32位字母、数字或_.-',
    ],
    [
      { username: '用户名abc', password: 'olive-lamp' },
      'username: 用户名须为3到32位字母、数字或_.-',
    ],
    [{ username: 'a/b/c', password: 'olive-lamp' }, 'username: 用户名须为3到32位字母、数字或_.-'],
    [{ username: 'abc\n', password: 'olive-lamp' }, 'username: 用户名须为3到32位字母、数字或_.-'],
    [{ username: 'valid_name', password: '1234567' }, 'password: 密码须为8到128个字符'],
    [{ username: 'valid_name', password: 'x'.repeat(129) }, 'password: 密码须为8到128个字符'],
    [{ username: 'valid_name', password: '🙂'.repeat(129) }, 'password: 密码须为8到128个字符'],
    [{ password: 'olive-lamp' }, 'username: 缺少用户名'],
    [{ username: 'valid_name' }, 'password: 缺少密码'],
    [{ username: 12345, password: 'olive-lamp' }, 'username: 用户名须为字符串'],
    [{ username: 'valid_name', password: 12345678 }, 'password: 密码须为字符串'],
    [{ username: null, password: null }, 'username: 用户名须为字符串; password: 密码须为字符串'],
    [{}, 'username: 缺少用户名; password: 缺少密码'],
    [['valid_name', 'olive-lamp'], 'body: 请求体须为JSON对象'],
  ])('answers 400 naming the field for %j', async (body, message) => {
    const before = await countUsers(stores.pool);
    const res = await register(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
    expect(await countUsers(stores.pool)).toBe(before);
  });
});

describe('POST /api/user/login', () => {
  const stores = suiteStores();

  const postLogin = (app: Parameters<typeof request>[0], body: unknown) =>
    request(app)
      .post('/api/user/login')
      .send(body as object);

  async function insertLegacyUser(username: string, password: string): Promise<number> {
    const [result] = await stores.pool.query(
      'INSERT INTO users (username, password) VALUES (?, ?)',
      [username, md5(password)],
    );
    return (result as { insertId: number }).insertId;
  }

  describe.each(SCHEMES)('TOKEN_SCHEME=%s', (scheme) => {
    const ttl = 3600;
    const app = suiteApp(stores, { tokenScheme: scheme, tokenTtl: ttl });

    it('answers the token and its lifetime, and writes the session with the full TOKEN_TTL', async () => {
      const { username, password } = await registerUser(app());
      const res = await postLogin(app(), { username, password });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        code: 200,
        message: '登录成功',
        data: { token: expect.any(String), expiresIn: ttl, deviceToken: DEVICE_TOKEN },
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
        const { username, password } = await registerUser(app());
        const tokens = [
          await login(app(), username, password),
          await login(app(), username, password),
        ];
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
        const { username, password } = await registerUser(app());
        const first = await login(app(), username, password);
        await stores.redis.expire(first, 20);
        const second = await login(app(), username, password);
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
      const { username, password } = await registerUser(app(), uniqueName('MiXed'));
      const res = await postLogin(app(), { username: username.toUpperCase(), password });
      expect(res.status).toBe(200);
      const { token } = res.body.data;
      const status = await request(app()).get('/api/user/status').set('token', token);
      expect(status.body.data).toMatchObject({ loggedIn: true, username });
      if (scheme === 'md5') expect(token).toBe(md5(username + password));
    });

    it('answers one 401 message for a wrong password and for an unknown user, and writes no session', async () => {
      const { username, password } = await registerUser(app());
      const before = (await allKeys(stores.redis)).filter((key) => !key.startsWith('auth:'));
      const attempts = [
        { username, password: `${password}x` },
        { username, password: password.toUpperCase() },
        { username: uniqueName('ghost'), password },
        { username: `${username} `, password },
      ];
      for (const body of attempts) {
        const res = await postLogin(app(), body);
        expect(res.status, JSON.stringify(body)).toBe(401);
        expect(res.body).toEqual(WRONG_CREDENTIALS);
      }
      const after = (await allKeys(stores.redis)).filter((key) => !key.startsWith('auth:'));
      expect(after).toEqual(before);
    });

    it('logs in an account of the old system (MD5 digest, long name) and rehashes it with scrypt', async () => {
      const username = `Old System User ${uniqueName()} with a name far beyond thirty-two characters`;
      const id = await insertLegacyUser(username, 'abc');

      const wrong = await postLogin(app(), { username, password: 'abd' });
      expect(wrong.body).toEqual(WRONG_CREDENTIALS);
      expect(await passwordOf(stores.pool, id)).toBe(md5('abc'));

      const res = await postLogin(app(), { username, password: 'abc' });
      expect(res.status).toBe(200);
      if (scheme === 'md5') expect(res.body.data.token).toBe(md5(`${username}abc`));
      expect(await passwordOf(stores.pool, id)).toMatch(/^scrypt\$16384\$8\$1\$/);

      expect((await postLogin(app(), { username, password: 'abc' })).status).toBe(200);
      expect((await postLogin(app(), { username, password: 'abd' })).body).toEqual(
        WRONG_CREDENTIALS,
      );
    });

    it('leaves the MD5 digest in place with PASSWORD_REHASH=false, for an old backend reading the table', async () => {
      const { app: keepMd5 } = buildApp(stores, { tokenScheme: scheme, passwordRehash: false });
      const username = uniqueName('legacy');
      const id = await insertLegacyUser(username, 'legacy-pass');
      expect((await postLogin(keepMd5, { username, password: 'legacy-pass' })).status).toBe(200);
      expect(await passwordOf(stores.pool, id)).toBe(md5('legacy-pass'));
    });
  });

  describe('input rules', () => {
    const app = suiteApp(stores);

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
      const res = await postLogin(app(), body);
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
      const res = await postLogin(app(), { username, password });
      expect(res.status).toBe(200);
      const status = await request(app()).get('/api/user/status').set('token', res.body.data.token);
      expect(status.body.data).toMatchObject({ loggedIn: true, username });
    });
  });

  describe('timing', () => {
    it('costs an unknown user about as much hashing time as a wrong password', async () => {
      const { app } = buildApp(stores, { loginMaxFailures: 1000 });
      const { username } = await registerUser(app);
      // The process's CPU per login, in milliseconds (the app runs in this process,
      // scrypt's thread included): load from other suites stretches wall time, not this.
      const timed = async (body: object) => {
        const started = process.cpuUsage();
        const res = await postLogin(app, body);
        expect(res.body).toEqual(WRONG_CREDENTIALS);
        const { user, system } = process.cpuUsage(started);
        return (user + system) / 1000;
      };
      // Measured in turns all the same.
      const nobody = uniqueName('nobody');
      const wrongTimes: number[] = [];
      const unknownTimes: number[] = [];
      for (let i = 0; i < 7; i++) {
        wrongTimes.push(await timed({ username, password: 'not-the-password' }));
        unknownTimes.push(await timed({ username: nobody, password: 'whatever' }));
      }
      const median = (times: number[]) => times.sort((a, b) => a - b)[3] as number;
      const wrongPassword = median(wrongTimes);
      const unknownUser = median(unknownTimes);
      // Without the dummy verification an unknown user costs a few milliseconds.
      expect(wrongPassword).toBeGreaterThan(15);
      expect(unknownUser / wrongPassword).toBeGreaterThan(0.6);
      expect(unknownUser / wrongPassword).toBeLessThan(1.6);
    });
  });
});

describe('GET /api/user/status', () => {
  const stores = suiteStores();

  describe.each(SCHEMES)('TOKEN_SCHEME=%s', (scheme) => {
    const sessionKey = layoutOf(scheme).session;
    const app = suiteApp(stores, { tokenScheme: scheme, tokenTtl: 600 });

    it('answers loggedIn false without a token', async () => {
      const res = await request(app()).get('/api/user/status');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(LOGGED_OUT);
    });

    it('answers the owner and the seconds left for a live session, in either header', async () => {
      const { username, password } = await registerUser(app());
      const token = await login(app(), username, password);
      for (const headers of [bearer(token), { token }]) {
        const res = await request(app()).get('/api/user/status').set(headers);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          code: 200,
          message: '获取成功',
          data: { loggedIn: true, username, expiresIn: expect.any(Number) },
        });
        expect(res.body.data.expiresIn).toBeGreaterThan(597);
        expect(res.body.data.expiresIn).toBeLessThanOrEqual(600);
      }

      await stores.redis.expire(sessionKey(token), 42);
      const later = await request(app()).get('/api/user/status').set(bearer(token));
      expect(later.body.data).toEqual({ loggedIn: true, username, expiresIn: 42 });
      // Asking is not a use: the lifetime stays where it was.
      expect(await stores.redis.ttl(sessionKey(token))).toBeLessThanOrEqual(42);
    });

    it('answers loggedIn false for a token never issued, malformed or sent the wrong way', async () => {
      const { username, password } = await registerUser(app());
      const token = await login(app(), username, password);
      const cases: Record<string, string>[] = [
        bearer('0'.repeat(scheme === 'md5' ? 32 : 64)),
        bearer('not-a-token'),
        { Authorization: `bearer ${token}` },
        { Authorization: `Bearer${token}` },
        { Authorization: `Basic ${token}` },
        { token: '' },
      ];
      for (const headers of cases) {
        const res = await request(app()).get('/api/user/status').set(headers);
        expect(res.body, JSON.stringify(headers)).toEqual(LOGGED_OUT);
      }
    });

    it('answers loggedIn false after logout', async () => {
      const { username, password } = await registerUser(app());
      const token = await login(app(), username, password);
      expect((await request(app()).post('/api/user/logout').set(bearer(token))).status).toBe(200);
      const res = await request(app()).get('/api/user/status').set(bearer(token));
      expect(res.body).toEqual(LOGGED_OUT);
    });
  });

  describe('over time', () => {
    it.concurrent.each(SCHEMES)(
      'answers loggedIn false once the session has expired (TOKEN_SCHEME=%s)',
      async (scheme) => {
        const { app: shortLived } = buildApp(stores, { tokenScheme: scheme, tokenTtl: 1 });
        const { username, password } = await registerUser(shortLived);
        const token = await login(shortLived, username, password);
        const live = await request(shortLived).get('/api/user/status').set(bearer(token));
        expect(live.body.data).toMatchObject({ loggedIn: true, username });
        await sleep(2100);
        const res = await request(shortLived).get('/api/user/status').set(bearer(token));
        expect(res.body).toEqual(LOGGED_OUT);
        expect(await stores.redis.exists(layoutOf(scheme).session(token))).toBe(0);
      },
    );
  });
});

describe('GET /api/user/me', () => {
  const stores = suiteStores();

  describe.each(SCHEMES)('TOKEN_SCHEME=%s', (scheme) => {
    const sessionKey = layoutOf(scheme).session;
    const app = suiteApp(stores, { tokenScheme: scheme, tokenTtl: 300 });

    it('answers the session owner for a live token in either header', async () => {
      const { username, password } = await registerUser(app());
      const token = await login(app(), username, password);
      for (const headers of [bearer(token), { token }]) {
        const res = await request(app()).get('/api/user/me').set(headers);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          code: 200,
          message: '获取成功',
          data: { username, totp: false },
        });
      }
    });

    it('answers 401 without a token and 401 for a token without a session', async () => {
      const none = await request(app()).get('/api/user/me');
      expect(none.status).toBe(401);
      expect(none.body).toEqual(NO_TOKEN);
      const unknown = await request(app())
        .get('/api/user/me')
        .set(bearer('a'.repeat(scheme === 'md5' ? 32 : 64)));
      expect(unknown.status).toBe(401);
      expect(unknown.body).toEqual(INVALID_TOKEN);
    });

    it('does not extend the lifetime on use unless TOKEN_SLIDING is on', async () => {
      const { username, password } = await registerUser(app());
      const token = await login(app(), username, password);
      await stores.redis.expire(sessionKey(token), 30);
      expect((await request(app()).get('/api/user/me').set(bearer(token))).status).toBe(200);
      expect(await stores.redis.ttl(sessionKey(token))).toBeLessThanOrEqual(30);

      const { app: sliding } = buildApp(stores, {
        tokenScheme: scheme,
        tokenTtl: 300,
        sliding: true,
      });
      const index = `session:user:${username.toLowerCase()}`;
      if (scheme === 'random') await stores.redis.expire(index, 30);
      expect((await request(sliding).get('/api/user/me').set(bearer(token))).status).toBe(200);
      expect(await stores.redis.ttl(sessionKey(token))).toBeGreaterThan(297);
      if (scheme === 'random') expect(await stores.redis.ttl(index)).toBeGreaterThan(297);
    });
  });

  // These wait for lifetimes to pass; they run side by side to keep the suite quick.
  describe('over time', () => {
    it.concurrent.each(SCHEMES)(
      'answers 401 once TOKEN_TTL has elapsed since login (TOKEN_SCHEME=%s)',
      async (scheme) => {
        const { app: shortLived } = buildApp(stores, { tokenScheme: scheme, tokenTtl: 1 });
        const { username, password } = await registerUser(shortLived);
        const token = await login(shortLived, username, password);
        expect((await request(shortLived).get('/api/user/me').set(bearer(token))).status).toBe(200);
        await sleep(2100);
        const res = await request(shortLived).get('/api/user/me').set(bearer(token));
        expect(res.status).toBe(401);
        expect(res.body).toEqual(INVALID_TOKEN);
      },
    );

    it.concurrent.each(SCHEMES)(
      'keeps a sliding session alive past TOKEN_TTL while it is used (TOKEN_SCHEME=%s)',
      async (scheme) => {
        const { app: sliding } = buildApp(stores, {
          tokenScheme: scheme,
          tokenTtl: 2,
          sliding: true,
        });
        const { username, password } = await registerUser(sliding);
        const token = await login(sliding, username, password);
        for (let i = 0; i < 3; i++) {
          await sleep(900);
          const res = await request(sliding).get('/api/user/me').set(bearer(token));
          expect(res.status, `use ${i}`).toBe(200);
        }
        await sleep(2300);
        expect((await request(sliding).get('/api/user/me').set(bearer(token))).body).toEqual(
          INVALID_TOKEN,
        );
      },
    );
  });
});

describe('GET /api/user/verify', () => {
  const stores = suiteStores();

  describe.each(SCHEMES)('TOKEN_SCHEME=%s', (scheme) => {
    const app = suiteApp(stores, { tokenScheme: scheme });

    it('answers 200 with the owner in the body and in X-Auth-User, for either header', async () => {
      const { username, password } = await registerUser(app());
      const token = await login(app(), username, password);
      for (const headers of [bearer(token), { token }]) {
        const res = await request(app()).get('/api/user/verify').set(headers);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ code: 200, message: 'ok', data: { username } });
        expect(res.headers['x-auth-user']).toBe(username);
      }
    });

    it('percent-encodes a name that is not ASCII (an account from the old system)', async () => {
      const token = await createTestSession(stores.redis, { username: '张三 li', scheme });
      const res = await request(app()).get('/api/user/verify').set(bearer(token));
      expect(res.status).toBe(200);
      expect(res.headers['x-auth-user']).toBe('%E5%BC%A0%E4%B8%89%20li');
      expect(decodeURIComponent(res.headers['x-auth-user'] as string)).toBe('张三 li');
    });

    it('answers the guard 401s: no token, and a token without a live session (logged out)', async () => {
      const none = await request(app()).get('/api/user/verify');
      expect(none.status).toBe(401);
      expect(none.body).toEqual(NO_TOKEN);
      expect(none.headers['x-auth-user']).toBeUndefined();

      const { username, password } = await registerUser(app());
      const token = await login(app(), username, password);
      await request(app()).post('/api/user/logout').set(bearer(token)).expect(200);
      const dead = await request(app()).get('/api/user/verify').set(bearer(token));
      expect(dead.status).toBe(401);
      expect(dead.body).toEqual(INVALID_TOKEN);
      expect(dead.headers['x-auth-user']).toBeUndefined();
    });
  });

  describe('while Redis is down', () => {
    it('answers 503, never 401', async () => {
      const server = await startRedisServer();
      const redis = await connectRedis({ url: server.url, host: '', port: 0, db: 0 });
      try {
        const { app } = buildApp({ pool: stores.pool, redis });
        const token = await createTestSession(redis, { username: 'alice' });
        await server.stop();
        const res = await request(app).get('/api/user/verify').set(bearer(token));
        expect(res.status).toBe(503);
        expect(res.body).toEqual(UNAVAILABLE);
        expect(res.headers['x-auth-user']).toBeUndefined();
      } finally {
        redis.disconnect();
        await server.destroy();
      }
    });
  });
});

describe('POST /api/user/logout', () => {
  const stores = suiteStores();

  describe.each(SCHEMES)('TOKEN_SCHEME=%s', (scheme) => {
    const sessionKey = layoutOf(scheme).session;
    const app = suiteApp(stores, { tokenScheme: scheme });

    it('ends the session it is called with; the token then gets 401', async () => {
      const { username, password } = await registerUser(app());
      const token = await login(app(), username, password);
      const res = await request(app()).post('/api/user/logout').set({ token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ code: 200, message: '已退出登录' });
      expect(await stores.redis.exists(sessionKey(token))).toBe(0);

      for (const route of ['/api/user/me', '/api/user/logout']) {
        const again =
          route === '/api/user/me'
            ? await request(app()).get(route).set(bearer(token))
            : await request(app()).post(route).set(bearer(token));
        expect(again.status).toBe(401);
        expect(again.body).toEqual(INVALID_TOKEN);
      }
    });

    it('answers 401 without a token', async () => {
      const res = await request(app()).post('/api/user/logout');
      expect(res.status).toBe(401);
      expect(res.body).toEqual(NO_TOKEN);
    });

    if (scheme === 'random') {
      it("leaves the user's other sessions alive and drops only this one from the index", async () => {
        const { username, password } = await registerUser(app());
        const phone = await login(app(), username, password);
        const laptop = await login(app(), username, password);
        expect((await request(app()).post('/api/user/logout').set(bearer(phone))).status).toBe(200);

        expect((await request(app()).get('/api/user/me').set(bearer(laptop))).status).toBe(200);
        expect(await stores.redis.smembers(`session:user:${username.toLowerCase()}`)).toEqual([
          sha256(laptop),
        ]);
      });
    } else {
      it('a new login issues the same token again, which works', async () => {
        const { username, password } = await registerUser(app());
        const token = await login(app(), username, password);
        expect((await request(app()).post('/api/user/logout').set(bearer(token))).status).toBe(200);
        expect(await login(app(), username, password)).toBe(token);
        expect((await request(app()).get('/api/user/me').set(bearer(token))).status).toBe(200);
      });
    }
  });
});

describe('POST /api/user/change-password', () => {
  const stores = suiteStores();

  describe.each(SCHEMES)('TOKEN_SCHEME=%s', (scheme) => {
    const sessionKey = layoutOf(scheme).session;
    const app = suiteApp(stores, { tokenScheme: scheme });
    const change = (token: string, body: unknown) =>
      request(app())
        .post('/api/user/change-password')
        .set(bearer(token))
        .send(body as object);

    it('stores the new hash and ends the sessions, so only the new password logs in', async () => {
      const { id, username, password } = await registerUser(app());
      const token = await login(app(), username, password);
      const other = scheme === 'random' ? await login(app(), username, password) : token;

      const res = await change(token, { oldPassword: password, newPassword: 'brand-new-secret' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(CHANGED);

      expect(await stores.redis.exists(sessionKey(token), sessionKey(other))).toBe(0);
      if (scheme === 'random') {
        expect(await stores.redis.exists(`session:user:${username.toLowerCase()}`)).toBe(0);
      }
      for (const t of [token, other]) {
        expect((await request(app()).get('/api/user/me').set(bearer(t))).body).toEqual(
          INVALID_TOKEN,
        );
      }
      const stored = await passwordOf(stores.pool, id);
      expect(await verifyPassword('brand-new-secret', stored)).toEqual({
        ok: true,
        needsRehash: false,
      });

      const old = await request(app()).post('/api/user/login').send({ username, password });
      expect(old.body).toEqual(WRONG_CREDENTIALS);
      const fresh = await login(app(), username, 'brand-new-secret');
      if (scheme === 'md5') {
        expect(fresh).toBe(md5(`${username}brand-new-secret`));
        expect(fresh).not.toBe(token);
      }
      expect((await request(app()).get('/api/user/me').set(bearer(fresh))).status).toBe(200);
    });

    if (scheme === 'random') {
      it("revokes only this user's sessions", async () => {
        const alice = await registerUser(app());
        const bob = await registerUser(app());
        const aliceToken = await login(app(), alice.username, alice.password);
        const bobToken = await login(app(), bob.username, bob.password);
        const res = await change(aliceToken, {
          oldPassword: alice.password,
          newPassword: 'another-secret',
        });
        expect(res.body).toEqual(CHANGED);
        expect((await request(app()).get('/api/user/me').set(bearer(bobToken))).status).toBe(200);
        expect(await stores.redis.smembers(`session:user:${bob.username.toLowerCase()}`)).toEqual([
          sha256(bobToken),
        ]);
      });
    }

    it('answers 400 for a wrong old password and changes nothing', async () => {
      const { id, username, password } = await registerUser(app());
      const token = await login(app(), username, password);
      const before = await passwordOf(stores.pool, id);
      const res = await change(token, {
        oldPassword: 'not-my-password',
        newPassword: 'unused-new-secret',
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, message: '原密码错误' });
      expect(await passwordOf(stores.pool, id)).toBe(before);
      expect((await request(app()).get('/api/user/me').set(bearer(token))).status).toBe(200);
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
      const { id, username, password } = await registerUser(app());
      const token = await login(app(), username, password);
      const before = await passwordOf(stores.pool, id);
      const res = await change(token, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, message });
      expect(await passwordOf(stores.pool, id)).toBe(before);
      expect(await stores.redis.exists(sessionKey(token))).toBe(1);
    });

    it('answers 401 without a token, before looking at the body', async () => {
      const res = await request(app())
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
      expect(await login(keepMd5, username.toLowerCase(), 'modern-password')).toMatch(
        /^[0-9a-f]+$/,
      );
    });

    it('writes nothing but its own keys', async () => {
      const keys = await allKeys(stores.redis);
      // Both schemes' tests share the file's Redis.
      const layout =
        /^(session:[0-9a-f]{64}|session:user:.+|(session:)?credentials:.+|[0-9a-f]{32}|\{(session:[0-9a-f]{64}|[0-9a-f]{32})\}:meta|auth:login-failures:.+)$/;
      for (const key of keys) expect(key).toMatch(layout);
    });
  });
});
