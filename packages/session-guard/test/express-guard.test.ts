import { createHash } from 'node:crypto';
import {
  startRedisCluster,
  startRedisServer,
  type TestRedisCluster,
  type TestServer,
} from '@svc/test-kit';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { type Cluster, Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGuard,
  createSessionValidator,
  createTestSession,
  createUserSessions,
  type GuardOptions,
  type GuardOutcome,
  rejection,
  SessionStore,
  SessionStoreError,
} from '../src/index.js';
import { IOREDIS_MAJORS } from './support/ioredis-majors.js';
import { SCHEMES } from './support/layout.js';

/** A host's Express app with one guarded route that shows what the guard set. */
function guardedApp(options: GuardOptions): Express {
  const app = express();
  app.get('/api/comment/list', createGuard(options), (req, res) => {
    res.json({ user: req.user, token: req.token });
  });
  return app;
}

const NO_TOKEN = { code: 401, message: '未携带Token,请先登录' };
const INVALID = { code: 401, message: 'Token无效或已过期,请重新登录' };
const UNAVAILABLE = { code: 503, message: '服务暂不可用,请稍后重试' };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** Where a random-scheme session lives, as the package's README documents the layout. */
const sessionKey = (token: string) => `session:${sha256(token)}`;
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe.each(IOREDIS_MAJORS)('the guard on %s', (_name, major) => {
  let server: TestServer;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = major.redis(server.url);
    redis.on('error', () => {});
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.destroy();
  });

  it(`runs on that major (${major.name.split(' ')[1]}.x)`, () => {
    expect(major.version.split('.')[0]).toBe(major.name.split(' ')[1]);
  });

  it('lets a live session through in either header, and answers both 401s', async () => {
    const app = guardedApp({ redis });
    const token = await createTestSession(redis, { username: 'alice' });
    for (const headers of [{ authorization: `Bearer ${token}` }, { token }]) {
      const res = await request(app).get('/api/comment/list').set(headers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ user: { username: 'alice' }, token });
    }
    const none = await request(app).get('/api/comment/list');
    expect([none.status, none.body]).toEqual([401, NO_TOKEN]);
    const dead = await request(app).get('/api/comment/list').set('token', 'f'.repeat(64));
    expect([dead.status, dead.body]).toEqual([401, INVALID]);
  });

  it('refuses a session at once once it is revoked', async () => {
    const app = guardedApp({ redis });
    const token = await createTestSession(redis, { username: 'bob' });
    expect((await request(app).get('/api/comment/list').set('token', token)).status).toBe(200);
    await new SessionStore({ redis }).revoke(token, 'bob');
    const res = await request(app).get('/api/comment/list').set('token', token);
    expect([res.status, res.body]).toEqual([401, INVALID]);
  });

  it('renews a sliding session to its full lifetime on use, and leaves a fixed one alone', async () => {
    const sliding = await createTestSession(redis, { username: 'carol', ttlSeconds: 100 });
    const fixed = await createTestSession(redis, { username: 'carol', ttlSeconds: 100 });
    await redis.expire(sessionKey(sliding), 10);
    await redis.expire(sessionKey(fixed), 10);
    await request(guardedApp({ redis, sliding: true, ttlSeconds: 100 }))
      .get('/api/comment/list')
      .set('token', sliding)
      .expect(200);
    await request(guardedApp({ redis })).get('/api/comment/list').set('token', fixed).expect(200);
    expect(await redis.ttl(sessionKey(sliding))).toBeGreaterThan(90);
    expect(await redis.ttl(sessionKey(fixed))).toBeLessThanOrEqual(10);
  });

  it("reads the old backend's md5 sessions under a key prefix", async () => {
    const options = { redis, scheme: 'md5', keyPrefix: 'legacy:' } as const;
    const token = await createTestSession(redis, { ...options, username: 'dave', password: 'pw' });
    expect(await redis.get(`legacy:${token}`)).toBe('dave');
    const res = await request(guardedApp(options)).get('/api/comment/list').set('token', token);
    expect(res.body).toEqual({ user: { username: 'dave' }, token });
  });

  it('answers 503 while Redis is down, never 401, and through onReject when the host has one', async () => {
    const token = await createTestSession(redis, { username: 'erin' });
    const validator = createSessionValidator({ redis });
    const own = guardedApp({
      redis,
      onReject: (_req, res, _next, reason) => {
        res.status(reason === 'unavailable' ? 503 : 401).json({ ok: false, reason });
      },
    });
    await server.stop();
    try {
      const res = await request(guardedApp({ redis })).get('/api/comment/list').set('token', token);
      expect([res.status, res.body]).toEqual([503, UNAVAILABLE]);
      const hosted = await request(own).get('/api/comment/list').set('token', token);
      expect([hosted.status, hosted.body]).toEqual([503, { ok: false, reason: 'unavailable' }]);
      await expect(validator.validate(token)).rejects.toBeInstanceOf(SessionStoreError);
    } finally {
      await server.start();
    }
    // The server came back empty (no persistence): the guard serves again, without a restart.
    await expect
      .poll(() => validator.validate(token).catch(() => 'down'), { timeout: 10_000 })
      .toBeNull();
  });
});

const GROUPS = ['/api/testQuestion', '/api/user/testQuestion', '/api/comment'];

/** The judge backend's shape: three route groups, each behind the guard; `calls` counts the routes run. */
function judgeApp(options: GuardOptions, calls = { count: 0 }): Express {
  const app = express();
  const guard = createGuard(options);
  for (const group of GROUPS) {
    const router = express.Router();
    router.use(guard);
    const echo: express.RequestHandler = (req, res) => {
      calls.count++;
      res.json({ code: 200, message: 'ok', data: { group, token: req.token, user: req.user } });
    };
    router.get('/list', echo);
    router.post('/add', echo);
    router.delete('/:id', echo);
    app.use(group, router);
  }
  return app;
}

/** One Redis for the suites below that need no server of their own to stop. */
let shared: TestServer;
let redis: Redis;
beforeAll(async () => {
  shared = await startRedisServer();
  redis = new Redis(shared.url, { maxRetriesPerRequest: 0 });
});
afterAll(async () => {
  redis?.disconnect();
  await shared?.destroy();
});

/** A client whose every command fails at once, as during a Redis outage. */
async function disconnectedRedis(): Promise<Redis> {
  const broken = new Redis(shared.url, { maxRetriesPerRequest: 0 });
  broken.on('error', () => {});
  await broken.ping();
  broken.disconnect();
  return broken;
}

describe.each(SCHEMES)('the guard in a judge-shaped app (scheme %s)', (scheme) => {
  let app: Express;
  let token: string;
  let other: string;
  const absent = scheme === 'md5' ? 'f'.repeat(32) : 'f'.repeat(64);
  beforeAll(async () => {
    app = judgeApp({ redis, scheme });
    token = await createTestSession(redis, { username: 'admin', scheme });
    other = await createTestSession(redis, { username: 'student', scheme });
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

  // [headers, expected]: "T" is a live token, "X" a well-formed one without a session.
  const cases: [string, Record<string, string>, 'pass' | typeof NO_TOKEN | typeof INVALID][] = [
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
      INVALID,
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
    ['a token without a session', { Authorization: 'Bearer X' }, INVALID],
    ['the token in upper case', { Authorization: 'Bearer UPPER' }, INVALID],
    ['the token with a suffix', { token: 'Tx' }, INVALID],
    ['the token cut short', { token: 'SHORT' }, INVALID],
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
    const key = scheme === 'md5' ? token : sessionKey(token);
    await redis.expire(key, 50);
    expect((await request(app).get('/api/comment/list').set(bearer(token))).status).toBe(200);
    expect(await redis.ttl(key)).toBeLessThanOrEqual(50);

    const sliding = judgeApp({ redis, scheme, sliding: true, ttlSeconds: 500 });
    expect((await request(sliding).get('/api/comment/list').set(bearer(token))).status).toBe(200);
    expect(await redis.ttl(key)).toBeGreaterThan(497);
    if (scheme === 'random') expect(await redis.ttl('session:user:admin')).toBeGreaterThan(497);
  });

  it('reads sessions under a custom key prefix when given the same one', async () => {
    const prefixed = await createTestSession(redis, {
      username: 'judge',
      scheme,
      keyPrefix: 'judge:session:',
    });
    const key =
      scheme === 'md5' ? `judge:session:${prefixed}` : `judge:session:${sha256(prefixed)}`;
    expect(await redis.get(key)).toBe('judge');
    const withPrefix = judgeApp({ redis, scheme, keyPrefix: 'judge:session:' });
    expect((await request(withPrefix).get('/api/comment/list').set(bearer(prefixed))).status).toBe(
      200,
    );
    expect((await request(app).get('/api/comment/list').set(bearer(prefixed))).body).toEqual(
      INVALID,
    );
  });

  it('answers 503 when Redis fails, tells onStoreError, and never calls the route', async () => {
    const broken = await disconnectedRedis();
    const reported: unknown[] = [];
    const calls = { count: 0 };
    const down = judgeApp(
      { redis: broken, scheme, onStoreError: (err) => reported.push(err) },
      calls,
    );
    const res = await request(down).get('/api/testQuestion/list').set(bearer(token));
    expect(res.status).toBe(503);
    expect(res.body).toEqual(UNAVAILABLE);
    expect(reported).toHaveLength(1);

    // Requests that need no store still get their 401.
    const none = await request(down).get('/api/testQuestion/list');
    expect(none.body).toEqual(NO_TOKEN);
    const malformed = await request(down).get('/api/testQuestion/list').set('token', 'x');
    expect(malformed.body).toEqual(INVALID);
    expect(reported).toHaveLength(1);
    expect(calls.count).toBe(0);
  });
});

describe('createGuard options', () => {
  it('refuses sliding sessions without a positive integer ttlSeconds', () => {
    expect(() => createGuard({ redis, sliding: true })).toThrow(TypeError);
    expect(() => createGuard({ redis, sliding: true, ttlSeconds: 0 })).toThrow(TypeError);
    expect(() => createGuard({ redis, sliding: true, ttlSeconds: 1.5 })).toThrow(TypeError);
    expect(typeof createGuard({ redis, sliding: true, ttlSeconds: 60 })).toBe('function');
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
      expect(() => createGuard({ redis, ...options }), JSON.stringify(options)).toThrow(TypeError);
    }
    expect(typeof createGuard({ redis, touchSeconds: 1, maxAgeSeconds: 315_360_000 })).toBe(
      'function',
    );
  });

  it('tells onOutcome the outcome of every answer, the store outage included', async () => {
    const outcomes: GuardOutcome[] = [];
    const onOutcome = (outcome: GuardOutcome) => outcomes.push(outcome);
    const app = judgeApp({ redis, onOutcome });
    const token = await createTestSession(redis, { username: 'counted' });
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
    const calls = { count: 0 };
    const app = judgeApp(
      {
        redis,
        onReject: (_req, res, _next, reason) => {
          res.status(reason === 'unavailable' ? 503 : 401).json({ ok: false, reason });
        },
      },
      calls,
    );
    const none = await request(app).get('/api/comment/list');
    expect([none.status, none.body]).toEqual([401, { ok: false, reason: 'missing' }]);
    const dead = await request(app)
      .get('/api/comment/list')
      .set(bearer('f'.repeat(64)));
    expect([dead.status, dead.body]).toEqual([401, { ok: false, reason: 'invalid' }]);
    expect(calls.count).toBe(0);
  });

  it('defaults to the random scheme: an md5 session is not accepted', async () => {
    const md5Token = await createTestSession(redis, { username: 'someone', scheme: 'md5' });
    const app = judgeApp({ redis });
    expect((await request(app).get('/api/comment/list').set(bearer(md5Token))).body).toEqual(
      INVALID,
    );
  });
});

describe('a Redis failure in the host', () => {
  const token = 'a'.repeat(64);
  /** The host's request logger, as pino-http sets `req.log`, writing into `logged`. */
  const withLog = (app: Express, logged: unknown[][]) => {
    const host = express();
    host.use((req, _res, next) => {
      Object.assign(req, { log: { error: (...args: unknown[]) => logged.push(args) } });
      next();
    });
    host.use(app);
    return host;
  };
  /** The host's own error handler: it shows what reached it. */
  const hostErrors: ErrorRequestHandler = (err, _req, res, _next) => {
    res.status(500).json({ hostSaw: err instanceof Error ? err.message : String(err) });
  };

  it("is logged to the request's logger when the guard answers itself", async () => {
    const logged: unknown[][] = [];
    const app = withLog(guardedApp({ redis: await disconnectedRedis() }), logged);
    const res = await request(app).get('/api/comment/list').set('token', token);
    expect([res.status, res.body]).toEqual([503, UNAVAILABLE]);
    expect(logged).toEqual([[{ err: expect.any(Error) }, 'session store unavailable']]);
    // Redis's own error, not the package's wrapper.
    const [[{ err }]] = logged as [[{ err: Error }]];
    expect(err).not.toBeInstanceOf(SessionStoreError);
    expect(err.message).toMatch(/Connection is closed/);
  });

  it("reaches the host's error handler through onReject's next, logged only where the host says", async () => {
    const logged: unknown[][] = [];
    const told: unknown[] = [];
    const broken = await disconnectedRedis();
    const guarded = guardedApp({
      redis: broken,
      onReject: (_req, _res, next, reason, err) => next(reason === 'unavailable' ? err : reason),
    });
    guarded.use(hostErrors);
    const res = await request(withLog(guarded, logged))
      .get('/api/comment/list')
      .set('token', token);
    expect(res.status).toBe(500);
    expect(res.body.hostSaw).toMatch(/Connection is closed/);
    expect(logged).toEqual([]);

    const reporting = guardedApp({
      redis: broken,
      onReject: (_req, res) => res.status(503).json({ ok: false }),
      onStoreError: (err, req) => told.push([err instanceof SessionStoreError, req.url]),
    });
    await request(reporting).get('/api/comment/list').set('token', token).expect(503);
    expect(told).toEqual([[false, '/api/comment/list']]);
  });
});

describe('rejection', () => {
  it('gives the status and body the guard answers each refusal with', () => {
    expect(rejection('missing')).toEqual({ status: 401, body: NO_TOKEN });
    expect(rejection('invalid')).toEqual({ status: 401, body: INVALID });
    expect(rejection('unavailable')).toEqual({ status: 503, body: UNAVAILABLE });
  });
});

describe.each(IOREDIS_MAJORS)('the guard on a Redis Cluster client of %s', (_name, major) => {
  let cluster: TestRedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = major.cluster(cluster.nodes);
  }, 60_000);

  afterAll(async () => {
    client?.disconnect();
    await cluster?.destroy();
  });

  it('lets sessions through whichever node holds them, and refuses revoked ones', async () => {
    const app = guardedApp({ redis: client });
    const tokens = await Promise.all(
      ['frank', 'grace', 'heidi'].map((username) => createTestSession(client, { username })),
    );
    for (const token of tokens) {
      expect((await request(app).get('/api/comment/list').set('token', token)).status).toBe(200);
    }
    await createUserSessions({ redis: client }).endAll('grace', tokens[1] as string);
    const res = await request(app)
      .get('/api/comment/list')
      .set('token', tokens[1] as string);
    expect([res.status, res.body]).toEqual([401, INVALID]);
  });
});
