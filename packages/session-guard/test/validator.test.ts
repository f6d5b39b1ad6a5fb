import { freePort } from '@svc/test-kit';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  createSessionValidator,
  createTestSession,
  type SessionOptions,
  SessionStore,
  SessionStoreError,
} from '../src/index.js';
import { layoutOf, SCHEMES, sleep } from './support/layout.js';
import { ownRedis } from './support/own-redis.js';
import { user } from './support/usernames.js';

const redis = ownRedis();

/** A client of a port nothing listens on: every command fails. */
async function unreachableRedis(): Promise<Redis> {
  const port = await freePort();
  const broken = new Redis({ port, maxRetriesPerRequest: 0, retryStrategy: () => null });
  broken.on('error', () => {});
  return broken;
}

describe.each(SCHEMES)('createSessionValidator (scheme %s)', (scheme) => {
  const keys = layoutOf(scheme);
  const validator = (options: Partial<SessionOptions> = {}) =>
    createSessionValidator({ redis: redis(), scheme, ...options });
  const login = (username: string, ttlSeconds = 3600) =>
    createTestSession(redis(), { username, scheme, ttlSeconds });
  const wellFormed = (char: string) => char.repeat(scheme === 'md5' ? 32 : 64);

  it('resolves the owner of a live session, and null for a token that names none', async () => {
    const alice = user();
    const token = await login(alice);
    expect(await validator().validate(token)).toEqual({ username: alice });
    expect(await validator().validate(wellFormed('f'))).toBeNull();
  });

  it('refuses a token no login could issue without asking Redis, and rejects with a SessionStoreError when Redis fails', async () => {
    const down = createSessionValidator({ redis: await unreachableRedis(), scheme });
    const otherScheme = scheme === 'md5' ? 'a'.repeat(64) : 'a'.repeat(32);
    for (const token of [
      'x',
      'bull:judge:1',
      wellFormed('A'),
      otherScheme,
      `${wellFormed('a')} `,
    ]) {
      expect(await down.validate(token), token).toBeNull();
    }
    const failure = await down.validate(wellFormed('a')).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SessionStoreError);
    // The cause is Redis's own error, for the host's log.
    expect((failure as SessionStoreError).cause).toBeInstanceOf(Error);
    expect((failure as SessionStoreError).cause).not.toBeInstanceOf(SessionStoreError);
  });

  it('describes a session met for the first time (the old backend wrote it) from the request that used it', async () => {
    const [alice, bob, carol] = [user(), user(), user()];
    const tokens = [await login(alice), await login(bob), await login(carol)] as const;
    // As the old backend left them: the session key alone.
    for (const token of tokens) await redis().del(keys.metadata(token));
    const before = Date.now();
    await validator().validate(tokens[0], {
      headers: { 'user-agent': 'x'.repeat(300) },
      ip: '203.0.113.9',
      socket: { remoteAddress: '10.0.0.1' },
    });
    await validator().validate(tokens[1], {
      headers: {},
      socket: { remoteAddress: '198.51.100.2' },
    });
    await validator().validate(tokens[2]);
    const after = Date.now();

    const described = await Promise.all(
      tokens.map((token) => redis().hgetall(keys.metadata(token))),
    );
    expect(described).toEqual([
      expect.objectContaining({ ip: '203.0.113.9', userAgent: 'x'.repeat(256) }),
      expect.not.objectContaining({ userAgent: expect.anything() }),
      expect.not.objectContaining({ userAgent: expect.anything() }),
    ]);
    expect(described.map((meta) => meta.ip)).toEqual(['203.0.113.9', '198.51.100.2', 'unknown']);
    for (const [i, meta] of described.entries()) {
      expect(meta.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(meta.lastSeenAt).toBe(meta.createdAt);
      expect(Number(meta.createdAt)).toBeGreaterThanOrEqual(before);
      expect(Number(meta.createdAt)).toBeLessThanOrEqual(after);
      // The session key is left as its writer made it; the metadata ends with it.
      const token = tokens[i] as string;
      expect(await redis().get(keys.session(token))).toBe([alice, bob, carol][i]);
      const [sessionLeft, metadataLeft] = await Promise.all([
        redis().pttl(keys.session(token)),
        redis().pttl(keys.metadata(token)),
      ]);
      expect(sessionLeft).toBeGreaterThan(3_590_000);
      expect(Math.abs(sessionLeft - metadataLeft)).toBeLessThan(100);
    }
  });

  it('writes lastSeenAt at most once per touch interval, wherever the session is checked', async () => {
    const token = await login(user());
    // Two validators, as two processes would hold.
    const guards = [validator({ touchSeconds: 1 }), validator({ touchSeconds: 1 })];
    const lastSeenAt = async () => Number(await redis().hget(keys.metadata(token), 'lastSeenAt'));
    const createdAt = Number(await redis().hget(keys.metadata(token), 'createdAt'));
    const useEverywhere = async () => {
      for (let i = 0; i < 3; i++) {
        for (const guard of guards) expect(await guard.validate(token)).not.toBeNull();
      }
    };
    await useEverywhere();
    expect(await lastSeenAt()).toBe(createdAt);

    await sleep(1100);
    const before = Date.now();
    await guards[1]?.validate(token);
    const written = await lastSeenAt();
    expect(written).toBeGreaterThanOrEqual(before);
    await useEverywhere();
    // Unchanged, or (on a slow machine) written again a whole interval later.
    const later = await lastSeenAt();
    if (later !== written) expect(later - written).toBeGreaterThanOrEqual(1000);
    // Not sliding: the session still ends where the login put it, its metadata with it.
    const [sessionLeft, metadataLeft] = await Promise.all([
      redis().pttl(keys.session(token)),
      redis().pttl(keys.metadata(token)),
    ]);
    expect(sessionLeft).toBeLessThan(3_600_000 - 1000);
    expect(Math.abs(sessionLeft - metadataLeft)).toBeLessThan(50);
  });

  it('refuses a session at once when it ends, even within the touch interval it was seen in', async () => {
    const alice = user();
    const token = await login(alice);
    const guard = validator({ touchSeconds: 3600 });
    expect(await guard.validate(token)).toEqual({ username: alice });
    await new SessionStore({ redis: redis(), scheme }).revoke(token, alice);
    expect(await guard.validate(token)).toBeNull();
    expect(await guard.validate(token)).toBeNull();
  });

  it('renews a sliding session to ttlSeconds on use, its metadata and its user index with it', async () => {
    const alice = user();
    const token = await login(alice, 100);
    for (const key of [keys.session(token), keys.metadata(token), keys.index(alice)]) {
      await redis().expire(key, 10);
    }
    expect(await validator({ sliding: true, ttlSeconds: 500 }).validate(token)).not.toBeNull();
    expect(await redis().ttl(keys.session(token))).toBeGreaterThan(497);
    expect(await redis().ttl(keys.metadata(token))).toBeGreaterThan(497);
    if (scheme === 'random') expect(await redis().ttl(keys.index(alice))).toBeGreaterThan(497);
    // md5 keeps no index.
    else expect(await redis().exists(keys.index(alice))).toBe(0);
  });

  it('never renews a sliding session past its max age, and ends it there', async () => {
    const token = await login(user());
    const createdAt = Number(await redis().hget(keys.metadata(token), 'createdAt'));
    const guard = validator({ sliding: true, ttlSeconds: 3600, maxAgeSeconds: 2 });
    const checkedFrom = Date.now();
    expect(await guard.validate(token)).not.toBeNull();
    const left = await redis().pttl(keys.session(token));
    expect(left).toBeLessThanOrEqual(createdAt + 2000 - checkedFrom);
    expect(left).toBeGreaterThan(0);
    await sleep(createdAt + 2100 - Date.now());
    expect(await guard.validate(token)).toBeNull();
    expect(await redis().exists(keys.session(token), keys.metadata(token))).toBe(0);
  });
});

describe('createSessionValidator options', () => {
  it('names the option it refuses, when it is created', () => {
    const refused: [Partial<SessionOptions>, RegExp][] = [
      [{ sliding: true }, /sliding sessions need ttlSeconds/],
      [{ sliding: true, ttlSeconds: -1 }, /sliding sessions need ttlSeconds/],
      [{ touchSeconds: 0 }, /touchSeconds must be a positive integer/],
      [{ touchSeconds: '60' as unknown as number }, /touchSeconds must be a positive integer/],
      [{ maxAgeSeconds: 1.5 }, /maxAgeSeconds must be a positive integer/],
      [{ maxAgeSeconds: 315_360_001 }, /maxAgeSeconds must be at most 315360000/],
      [{ keyPrefix: 'judge:{x}:' }, /keyPrefix must not contain/],
    ];
    for (const [options, message] of refused) {
      let thrown: unknown;
      try {
        createSessionValidator({ redis: redis(), ...options });
      } catch (err) {
        thrown = err;
      }
      expect(thrown, message.source).toBeInstanceOf(TypeError);
      expect((thrown as TypeError).message).toMatch(message);
    }
    // ttlSeconds only matters to a sliding session.
    expect(createSessionValidator({ redis: redis(), ttlSeconds: 0 }).validate).toBeTypeOf(
      'function',
    );
  });
});
