import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { md5Token, randomToken, SessionStore, type SessionStoreOptions } from '../src/index.js';
import { layoutOf, SCHEMES, sleep } from './support/layout.js';
import { ownRedis } from './support/own-redis.js';
import { user } from './support/usernames.js';

const redis = ownRedis();
const LOGIN = { headers: { 'user-agent': 'Firefox/136.0' }, ip: '203.0.113.7' };

/** Calls of each command the server has run so far. */
async function commandCalls(): Promise<Record<string, number>> {
  const stats = await redis().info('commandstats');
  return Object.fromEntries(
    [...stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map(([, name, calls]) => [
      name as string,
      Number(calls),
    ]),
  );
}

describe.each(SCHEMES)('SessionStore (scheme %s)', (scheme) => {
  const keys = layoutOf(scheme);
  const store = (options: Partial<SessionStoreOptions> = {}) =>
    new SessionStore({ redis: redis(), scheme, ...options });
  const tokenOf = (username: string) =>
    scheme === 'md5' ? md5Token(username, randomBytes(6).toString('hex')) : randomToken();
  /** A login through a store with these options: its token and the lifetime it answered. */
  const login = async (username: string, ttlSeconds = 600, options = {}) => {
    const token = tokenOf(username);
    const opened = await store(options).create(token, username, ttlSeconds, LOGIN);
    return { token, expiresIn: opened?.expiresIn, id: opened?.id };
  };
  const lifetimeOf = async (key: string) => redis().ttl(key);

  it('writes a login in the documented layout: the session, its metadata and (random) the user index, all with its lifetime', async () => {
    const alice = user();
    const before = Date.now();
    const { token, expiresIn, id } = await login(alice);
    expect(expiresIn).toBe(600);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await redis().get(keys.session(token))).toBe(alice);
    const metadata = await redis().hgetall(keys.metadata(token));
    expect(metadata).toEqual({
      id,
      createdAt: expect.stringMatching(/^\d+$/),
      lastSeenAt: metadata.createdAt,
      // The absolute end: SESSION_MAX_AGE (default 7 days) after the login, whatever the TTL.
      endsAt: String(Number(metadata.createdAt) + 604_800_000),
      ip: '203.0.113.7',
      userAgent: 'Firefox/136.0',
    });
    expect(Number(metadata.createdAt)).toBeGreaterThanOrEqual(before);
    const written = [keys.session(token), keys.metadata(token)];
    if (scheme === 'random') {
      // The index is named by the lowercased username and holds the token's hash, never the token.
      expect(await redis().smembers(keys.index(alice))).toEqual([keys.member(token)]);
      written.push(keys.index(alice));
      expect(await redis().keys(`*${token}*`)).toEqual([]);
    } else {
      // md5: the bare token is the key, as the old backend wrote it, and there is no index.
      expect(keys.session(token)).toBe(token);
      expect(await redis().exists(keys.index(alice))).toBe(0);
    }
    for (const key of written) {
      expect(await lifetimeOf(key), key).toBeGreaterThan(597);
      expect(await lifetimeOf(key), key).toBeLessThanOrEqual(600);
    }
  });

  it('puts a key prefix in front of every key it writes', async () => {
    const alice = user();
    const prefixed = layoutOf(scheme, 'judge:');
    const { token } = await login(alice, 600, { keyPrefix: 'judge:' });
    expect(prefixed.session(token)).toMatch(/^judge:/);
    expect(await redis().get(prefixed.session(token))).toBe(alice);
    expect(await redis().exists(prefixed.metadata(token))).toBe(1);
    expect(await redis().exists(keys.session(token), keys.metadata(token))).toBe(0);
    expect(await redis().exists(prefixed.index(alice))).toBe(scheme === 'random' ? 1 : 0);
  });

  it('caps a login at the max age, and answers the lifetime it gave', async () => {
    const { token, expiresIn } = await login(user(), 3600, { maxAgeSeconds: 120 });
    expect(expiresIn).toBe(120);
    for (const key of [keys.session(token), keys.metadata(token)]) {
      expect(await lifetimeOf(key)).toBeGreaterThan(117);
      expect(await lifetimeOf(key)).toBeLessThanOrEqual(120);
    }
  });

  it('keeps at most 256 characters of the User-Agent, and `unknown` for a login that told no address', async () => {
    const token = tokenOf('bob');
    await store().create(token, 'bob', 600, { headers: { 'user-agent': 'y'.repeat(300) } });
    expect(await redis().hmget(keys.metadata(token), 'ip', 'userAgent')).toEqual([
      'unknown',
      'y'.repeat(256),
    ]);
    await store().create(token, 'bob', 600);
    expect(await redis().hexists(keys.metadata(token), 'userAgent')).toBe(0);
  });

  it('finds a live session with its seconds left, and nothing for a token that names none', async () => {
    const alice = user();
    const { token } = await login(alice);
    const found = await store().find(token);
    expect(found).toEqual({ username: alice, expiresIn: expect.any(Number) });
    expect(found?.expiresIn).toBeGreaterThan(597);
    expect(found?.expiresIn).toBeLessThanOrEqual(600);
    expect(await store().find(tokenOf(alice))).toBeNull();
  });

  it("revokes one session: its keys and its index entry go, the user's other sessions stay", async () => {
    const alice = user();
    const [first, second] = [await login(alice), await login(alice)];
    // The username as another spelling of the same user names the same index.
    await store().revoke(first.token, alice.toUpperCase());
    expect(await redis().exists(keys.session(first.token), keys.metadata(first.token))).toBe(0);
    expect(await store().find(first.token)).toBeNull();
    expect(await store().find(second.token)).toEqual({ username: alice, expiresIn: 600 });
    if (scheme === 'random') {
      expect(await redis().smembers(keys.index(alice))).toEqual([keys.member(second.token)]);
    }
  });

  it('checks a session seen within the touch interval with one GET, and never answers from memory', async () => {
    const alice = user();
    const { token } = await login(alice);
    const guard = store();
    const fixed = { touchMs: 60_000, renewMs: 0 };
    expect(await guard.check(token, fixed)).toBe(alice);
    const before = await commandCalls();
    for (let i = 0; i < 3; i++) expect(await guard.check(token, fixed)).toBe(alice);
    const after = await commandCalls();
    expect((after.get ?? 0) - (before.get ?? 0)).toBe(3);
    expect(after.evalsha).toBe(before.evalsha);
    expect(after.eval).toBe(before.eval);

    await store().revoke(token, alice);
    expect(await guard.check(token, fixed)).toBeNull();
  });

  it("touches lastSeenAt once the interval has passed, the metadata's end kept the session's", async () => {
    const { token } = await login(user());
    const guard = store();
    const use = { touchMs: 1000, renewMs: 0 };
    const lastSeenAt = async () => Number(await redis().hget(keys.metadata(token), 'lastSeenAt'));
    const createdAt = await lastSeenAt();
    await guard.check(token, use);
    expect(await lastSeenAt()).toBe(createdAt);
    await sleep(1100);
    const before = Date.now();
    await guard.check(token, use);
    const touched = await lastSeenAt();
    expect(touched).toBeGreaterThanOrEqual(before);
    await guard.check(token, use);
    expect(await lastSeenAt()).toBe(touched);
    const [sessionLeft, metadataLeft] = await Promise.all([
      redis().pttl(keys.session(token)),
      redis().pttl(keys.metadata(token)),
    ]);
    expect(sessionLeft).toBeLessThan(600_000 - 1000);
    expect(Math.abs(sessionLeft - metadataLeft)).toBeLessThan(50);
  });

  it('renews on a sliding check, the index with it, and never past the max age, where the session ends', async () => {
    const alice = user();
    const { token } = await login(alice, 5);
    await redis().pexpire(keys.index(alice), 1000);
    expect(await store().check(token, { touchMs: 60_000, renewMs: 10_000 })).toBe(alice);
    for (const key of [keys.session(token), keys.metadata(token)]) {
      expect(await redis().pttl(key)).toBeGreaterThan(9_000);
    }
    if (scheme === 'random') expect(await redis().pttl(keys.index(alice))).toBeGreaterThan(9_000);

    // A guard whose SESSION_MAX_AGE is 2 s: no renewal reaches past createdAt + 2 s.
    const createdAt = Number(await redis().hget(keys.metadata(token), 'createdAt'));
    const aged = store({ maxAgeSeconds: 2 });
    const checkedFrom = Date.now();
    expect(await aged.check(token, { touchMs: 60_000, renewMs: 10_000 })).toBe(alice);
    const left = await redis().pttl(keys.session(token));
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(createdAt + 2000 - checkedFrom);
    await sleep(createdAt + 2100 - Date.now());
    // The key alone would have lived 10 s; the check ends the session at its age.
    await redis().pexpire(keys.session(token), 10_000);
    expect(await aged.check(token, { touchMs: 60_000, renewMs: 10_000 })).toBeNull();
    expect(await redis().exists(keys.session(token), keys.metadata(token))).toBe(0);
  });
});

describe('SessionStore, md5 scheme', () => {
  it('writes a login anew over the session of the same token (one password, one token)', async () => {
    const md5 = new SessionStore({ redis: redis(), scheme: 'md5' });
    const token = md5Token('carol', 'pw');
    await md5.create(token, 'carol', 600, { headers: { 'user-agent': 'old' }, ip: '10.0.0.1' });
    const first = await redis().hgetall(`{${token}}:meta`);
    await md5.create(token, 'carol', 900, { headers: {}, ip: '10.0.0.2' });
    const second = await redis().hgetall(`{${token}}:meta`);
    expect(second.id).not.toBe(first.id);
    expect(second.ip).toBe('10.0.0.2');
    expect(second.userAgent).toBeUndefined();
    expect(await redis().ttl(token)).toBeGreaterThan(897);
  });
});
