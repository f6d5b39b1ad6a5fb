import { createTestSession } from '@svc/session-guard';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteApp, suiteStores } from './support/suite-setup.js';
import {
  allKeys,
  bearer,
  INVALID_TOKEN,
  login,
  registerUser,
  SCHEMES,
} from './support/test-app.js';

/** Keys shaped like a BullMQ queue named `judge`, of each Redis type it uses. */
async function seedQueue(redis: Redis): Promise<void> {
  await redis.set('bull:judge:id', '42');
  await redis.hset('bull:judge:42', {
    name: 'judge',
    data: '{"submissionId":7}',
    attemptsMade: '0',
  });
  await redis.hset('bull:judge:meta', { opts: '{}' });
  await redis.rpush('bull:judge:wait', '41', '42');
  await redis.zadd('bull:judge:delayed', 1, '40');
  await redis.xadd('bull:judge:events', '*', 'event', 'added', 'jobId', '42');
  await redis.set('bull:judge:0123456789abcdef0123456789abcdef:lock', 'worker-1');
}

async function snapshotQueue(redis: Redis): Promise<Record<string, string>> {
  const keys = (await redis.keys('bull:*')).sort();
  const dumps = await Promise.all(keys.map((key) => redis.dumpBuffer(key)));
  return Object.fromEntries(keys.map((key, i) => [key, dumps[i]?.toString('base64') ?? '']));
}

const stores = suiteStores();
let queueBefore: Record<string, string>;
beforeAll(async () => {
  await seedQueue(stores.redis);
  queueBefore = await snapshotQueue(stores.redis);
});

describe.each(SCHEMES)('session keys beside the judging queue (TOKEN_SCHEME=%s)', (scheme) => {
  const app = suiteApp(stores, { tokenScheme: scheme, sliding: true });

  it('every session operation leaves the queue keys as they were and writes only its own layout', async () => {
    const existing = new Set(await allKeys(stores.redis));
    const { username, password } = await registerUser(app());
    const token = await login(app(), username, password);
    const second = await login(app(), username, password);
    await request(app()).post('/api/user/login').send({ username, password: 'wrong' });
    await request(app()).get('/api/user/status').set(bearer(token));
    await request(app()).get('/api/user/me').set(bearer(token));
    await request(app()).post('/api/user/logout').set(bearer(second));
    const fresh = await login(app(), username, password);
    const changed = await request(app())
      .post('/api/user/change-password')
      .set(bearer(fresh))
      .send({ oldPassword: password, newPassword: 'changed-password' });
    expect(changed.status).toBe(200);
    await createTestSession(stores.redis, { username: 'helper', scheme });

    expect(await snapshotQueue(stores.redis)).toEqual(queueBefore);
    const own = (await allKeys(stores.redis)).filter((key) => !existing.has(key));
    expect(own.length).toBeGreaterThan(0);
    const layout =
      scheme === 'md5'
        ? /^([0-9a-f]{32}|\{[0-9a-f]{32}\}:meta|credentials:.+|auth:login-failures:[^:]+:.+)$/
        : /^(session:[0-9a-f]{64}|\{session:[0-9a-f]{64}\}:meta|session:user:.+|session:credentials:.+|auth:login-failures:[^:]+:.+)$/;
    for (const key of own) expect(key).toMatch(layout);
  });

  it('never takes a queue key for a session, whatever token a client sends', async () => {
    const queueKeys = Object.keys(queueBefore);
    expect(queueKeys).toContain('bull:judge:id');
    for (const key of [...queueKeys, 'bull:judge:*', '0123456789abcdef0123456789abcdef:lock']) {
      for (const headers of [bearer(key), { token: key }]) {
        const me = await request(app()).get('/api/user/me').set(headers);
        expect(me.status, key).toBe(401);
        expect(me.body).toEqual(INVALID_TOKEN);
        const logout = await request(app()).post('/api/user/logout').set(headers);
        expect(logout.body).toEqual(INVALID_TOKEN);
        const status = await request(app()).get('/api/user/status').set(headers);
        expect(status.body.data).toEqual({ loggedIn: false });
      }
    }
    expect(await snapshotQueue(stores.redis)).toEqual(queueBefore);
  });
});
