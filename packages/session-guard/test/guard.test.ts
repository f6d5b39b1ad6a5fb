import { createHash } from 'node:crypto';
import {
  startRedisCluster,
  startRedisServer,
  type TestRedisCluster,
  type TestServer,
} from '@svc/test-kit';
import express, { type Express } from 'express';
import type { Cluster, Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGuard,
  createSessionValidator,
  createTestSession,
  createUserSessions,
  type GuardOptions,
  SessionStore,
  SessionStoreError,
} from '../src/index.js';
import { IOREDIS_MAJORS } from './support/ioredis-majors.js';

/** A host's Express app with one guarded route that shows what the guard set. */
function guardedApp(options: GuardOptions): Express {
  const app = express();
  app.get('/api/comment/list', createGuard(options), (req, res) => {
    res.json({ user: req.user, token: req.token });
  });
  return app;
}

const NO_TOKEN = { code: 401, message: '未携带Token,请先登录' };

/** Where a random-scheme session lives, as the package's README documents the layout. */
const sessionKey = (token: string) => `session:${createHash('sha256').update(token).digest('hex')}`;
const INVALID = { code: 401, message: 'Token无效或已过期,请重新登录' };
const UNAVAILABLE = { code: 503, message: '服务暂不可用,请稍后重试' };

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
