import { createHash } from 'node:crypto';
import { connectRedis } from '@svc/common';
import {
  createGuard,
  createTestSession,
  type GuardOptions,
  type GuardOutcome,
  readToken,
} from '@svc/session-guard';
import express, { type Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  buildApp,
  INVALID_TOKEN,
  login,
  NO_TOKEN,
  openStores,
  registerUser,
  SCHEMES,
  type Stores,
  UNAVAILABLE,
} from './support/test-app.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const GROUPS = ['/api/testQuestion', '/api/user/testQuestion', '/api/comment'];

/** The judge backend's shape: three route groups, each behind the guard. */
function judgeApp(options: GuardOptions): Express {
  const app = express();
  const guard = createGuard(options);
  for (const group of GROUPS) {
    const router = express.Router();
    router.use(guard);
    const echo: express.RequestHandler = (req, res) => {
      res.json({ code: 200, message: 'ok', data: { group, token: req.token, user: req.user } });
    };
    router.get('/list', echo);
    router.post('/add', echo);
    router.delete('/:id', echo);
    app.use(group, router);
  }
  return app;
}

/** A client whose every command fails, as during a Redis outage. */
async function disconnectedRedis() {
  const broken = await connectRedis({ url: process.env.TEST_REDIS_URL, host: '', port: 0, db: 0 });
  broken.disconnect();
  return broken;
}

let stores: Stores;
beforeAll(async () => {
  stores = await openStores();
});
afterAll(() => stores.close());

describe.each(SCHEMES)('the guard as a library (scheme %s)', (scheme) => {
  let app: Express;
  let token: string;
  let other: string;
  const absent = scheme === 'md5' ? 'f'.repeat(32) : 'f'.repeat(64);
  beforeAll(async () => {
    app = judgeApp({ redis: stores.redis, scheme });
    token = await createTestSession(stores.redis, { username: 'admin', scheme });
    other = await createTestSession(stores.redis, { username: 'student', scheme });
  });

  it('lets any valid token through administrator and user routes alike, setting req.token and req.user', async () => {
    for (const [username, t] of [
      ['admin', token],
      ['student', other],
    ] as const) {
      for (const group of GROUPS) {
        for (const call of [
          request(app).get(`${group}/list`),
          request(app).post(`${group}/add`).send({}),
          request(app).delete(`${group}/7`),
        ]) {
          const res = await call.set(bearer(t));
          expect(res.status).toBe(200);
          expect(res.body).toEqual({
            code: 200,
            message: 'ok',
            data: { group, token: t, user: { username } },
          });
        }
      }
    }
  });

  it('accepts tokens the auth service issued, whatever the account roles', async () => {
    const service = buildApp(stores, { tokenScheme: scheme }).app;
    const account = await registerUser(service);
    await stores.pool.query("UPDATE users SET roles = 'admin' WHERE id = ?", [account.id]);
    const issued = await login(service, account.username, account.password);
    const res = await request(app).get('/api/testQuestion/list').set('token', issued);
    expect(res.status).toBe(200);
    expect(res.body.data.user).toEqual({ username: account.username });
  });

  // [headers, expected]: "T" is a live token, "X" a well-formed one without a session.
  const cases: [string, Record<string, string>, 'pass' | typeof NO_TOKEN | typeof INVALID_TOKEN][] =
    [
      ['Bearer and one space', { Authorization: 'Bearer T' }, 'pass'],
      ['the token header', { token: 'T' }, 'pass'],
      ['whitespace around the bearer token', { Authorization: 'Bearer  \t T \t ' }, 'pass'],
      ['whitespace around the token header', { token: ' \t T  ' }, 'pass'],
      ['no space after Bearer', { Authorization: 'BearerT' }, NO_TOKEN],
      [
        'no space after Bearer, token header present',
        { Authorization: 'BearerT', token: 'T' },
        'pass',
      ],
      ['lowercase bearer', { Authorization: 'bearer T' }, NO_TOKEN],
      ['lowercase bearer, token header present', { Authorization: 'bearer T', token: 'T' }, 'pass'],
      ['uppercase BEARER', { Authorization: 'BEARER T' }, NO_TOKEN],
      [
        'another scheme, token header present',
        { Authorization: 'Basic dXNlcg==', token: 'T' },
        'pass',
      ],
      ['both headers: Authorization wins', { Authorization: 'Bearer T', token: 'X' }, 'pass'],
      [
        'both headers: no fallback from a bad bearer',
        { Authorization: 'Bearer X', token: 'T' },
        INVALID_TOKEN,
      ],
      ['empty Authorization', { Authorization: '' }, NO_TOKEN],
      ['empty Authorization, token header present', { Authorization: '', token: 'T' }, 'pass'],
      ['Bearer with nothing after it', { Authorization: 'Bearer ' }, NO_TOKEN],
      ['Bearer with only spaces after it', { Authorization: 'Bearer    ' }, NO_TOKEN],
      [
        'Bearer with nothing after it, token header present',
        { Authorization: 'Bearer ', token: 'T' },
        'pass',
      ],
      ['empty token header', { token: '' }, NO_TOKEN],
      ['blank token header', { token: '   ' }, NO_TOKEN],
      ['no header at all', {}, NO_TOKEN],
      ['a token without a session', { Authorization: 'Bearer X' }, INVALID_TOKEN],
      ['the token in upper case', { Authorization: 'Bearer UPPER' }, INVALID_TOKEN],
      ['the token with a suffix', { token: 'Tx' }, INVALID_TOKEN],
      ['the token cut short', { token: 'SHORT' }, INVALID_TOKEN],
    ];

  it.each(cases)('header case: %s', async (_name, template, expected) => {
    const headers = Object.fromEntries(
      Object.entries(template).map(([name, value]) => [
        name,
        value
          .replace('UPPER', token.toUpperCase())
          .replace('SHORT', token.slice(0, -1))
          .replace('T', token)
          .replace('X', absent),
      ]),
    );
    const res = await request(app).get('/api/comment/list').set(headers);
    if (expected === 'pass') {
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ group: '/api/comment', token, user: { username: 'admin' } });
    } else {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(expected);
    }
  });

  it('never renews a session on use unless sliding', async () => {
    const key = scheme === 'md5' ? token : `session:${sha256(token)}`;
    await stores.redis.expire(key, 50);
    expect((await request(app).get('/api/comment/list').set(bearer(token))).status).toBe(200);
    expect(await stores.redis.ttl(key)).toBeLessThanOrEqual(50);

    const sliding = judgeApp({ redis: stores.redis, scheme, sliding: true, ttlSeconds: 500 });
    expect((await request(sliding).get('/api/comment/list').set(bearer(token))).status).toBe(200);
    expect(await stores.redis.ttl(key)).toBeGreaterThan(497);
    if (scheme === 'random')
      expect(await stores.redis.ttl('session:user:admin')).toBeGreaterThan(497);
  });

  it('reads sessions under a custom key prefix when given the same one', async () => {
    const prefixed = await createTestSession(stores.redis, {
      username: 'judge',
      scheme,
      keyPrefix: 'judge:session:',
    });
    const key =
      scheme === 'md5' ? `judge:session:${prefixed}` : `judge:session:${sha256(prefixed)}`;
    expect(await stores.redis.get(key)).toBe('judge');
    const withPrefix = judgeApp({ redis: stores.redis, scheme, keyPrefix: 'judge:session:' });
    expect((await request(withPrefix).get('/api/comment/list').set(bearer(prefixed))).status).toBe(
      200,
    );
    expect((await request(app).get('/api/comment/list').set(bearer(prefixed))).body).toEqual(
      INVALID_TOKEN,
    );
  });

  it('answers 503 when Redis fails, tells onStoreError, and never calls the route', async () => {
    const broken = await disconnectedRedis();
    const reported: unknown[] = [];
    const down = judgeApp({ redis: broken, scheme, onStoreError: (err) => reported.push(err) });
    const res = await request(down).get('/api/testQuestion/list').set(bearer(token));
    expect(res.status).toBe(503);
    expect(res.body).toEqual(UNAVAILABLE);
    expect(reported).toHaveLength(1);

    // Requests that need no store still get their 401.
    const none = await request(down).get('/api/testQuestion/list');
    expect(none.body).toEqual(NO_TOKEN);
    const malformed = await request(down).get('/api/testQuestion/list').set('token', 'x');
    expect(malformed.body).toEqual(INVALID_TOKEN);
    expect(reported).toHaveLength(1);
  });
});

describe('createGuard options', () => {
  it('refuses sliding sessions without a positive integer ttlSeconds', () => {
    expect(() => createGuard({ redis: stores.redis, sliding: true })).toThrow(TypeError);
    expect(() => createGuard({ redis: stores.redis, sliding: true, ttlSeconds: 0 })).toThrow(
      TypeError,
    );
    expect(() => createGuard({ redis: stores.redis, sliding: true, ttlSeconds: 1.5 })).toThrow(
      TypeError,
    );
    expect(typeof createGuard({ redis: stores.redis, sliding: true, ttlSeconds: 60 })).toBe(
      'function',
    );
  });

  it('refuses a touch interval or max age that is not a positive integer, and a prefix with braces', () => {
    for (const options of [
      { touchSeconds: 0 },
      { touchSeconds: 2.5 },
      { maxAgeSeconds: 0 },
      { maxAgeSeconds: 315_360_001 },
      { keyPrefix: '{judge}:' },
      { keyPrefix: 'judge}' },
    ]) {
      expect(
        () => createGuard({ redis: stores.redis, ...options }),
        JSON.stringify(options),
      ).toThrow(TypeError);
    }
    expect(
      typeof createGuard({ redis: stores.redis, touchSeconds: 1, maxAgeSeconds: 315_360_000 }),
    ).toBe('function');
  });

  it('tells onOutcome the outcome of every answer, the store outage included', async () => {
    const outcomes: GuardOutcome[] = [];
    const onOutcome = (outcome: GuardOutcome) => outcomes.push(outcome);
    const app = judgeApp({ redis: stores.redis, onOutcome });
    const token = await createTestSession(stores.redis, { username: 'counted' });
    await request(app).get('/api/comment/list').set(bearer(token)).expect(200);
    await request(app).get('/api/comment/list').expect(401);
    await request(app)
      .get('/api/comment/list')
      .set(bearer('f'.repeat(64)))
      .expect(401);

    const broken = await disconnectedRedis();
    const down = judgeApp({ redis: broken, onOutcome, onStoreError: () => {} });
    await request(down).get('/api/comment/list').set(bearer(token)).expect(503);
    expect(outcomes).toEqual(['allowed', 'missing', 'invalid', 'unavailable']);
  });

  it("lets onReject answer refusals in the host's own envelope, the route never called", async () => {
    const app = judgeApp({
      redis: stores.redis,
      onReject: (_req, res, _next, reason) => {
        res.status(reason === 'unavailable' ? 503 : 401).json({ ok: false, reason });
      },
    });
    const none = await request(app).get('/api/comment/list');
    expect([none.status, none.body]).toEqual([401, { ok: false, reason: 'missing' }]);
    const dead = await request(app)
      .get('/api/comment/list')
      .set(bearer('f'.repeat(64)));
    expect([dead.status, dead.body]).toEqual([401, { ok: false, reason: 'invalid' }]);
  });

  it('defaults to the random scheme: an md5 session is not accepted', async () => {
    const md5Token = await createTestSession(stores.redis, { username: 'someone', scheme: 'md5' });
    const app = judgeApp({ redis: stores.redis });
    expect((await request(app).get('/api/comment/list').set(bearer(md5Token))).body).toEqual(
      INVALID_TOKEN,
    );
  });
});

describe('readToken', () => {
  it.each([
    [{ authorization: 'Bearer abc' }, 'abc'],
    [{ authorization: 'Bearer \t abc \t' }, 'abc'],
    [{ authorization: 'Bearer ' }, undefined],
    [{ authorization: 'Bearer ', token: 'abc' }, undefined],
    [{ authorization: 'Bearer', token: ' abc ' }, 'abc'],
    [{ authorization: 'bearer abc', token: 'def' }, 'def'],
    [{ token: '\u00a0abc\u00a0' }, 'abc'],
    [{ token: ['abc', 'def'] as unknown as string }, undefined],
    [{}, undefined],
  ])('%j → %s', (headers, expected) => {
    expect(readToken(headers)).toBe(expected);
  });
});
