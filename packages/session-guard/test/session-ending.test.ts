import { randomBytes } from 'node:crypto';
import { startRedisCluster, startRedisServer } from '@svc/test-kit';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSessionValidator,
  createUserSessions,
  md5Token,
  randomToken,
  SessionStore,
  type SessionStoreOptions,
  type TokenScheme,
} from '../src/index.js';
import { layoutOf, SCHEMES, sleep } from './support/layout.js';

/*
 * Ending a session is final (the contract's fourth round), on a single Redis and a
 * three-master Cluster, in both schemes: a password change fails the logins that
 * read the old hash; the end a login stores binds every guard, however configured;
 * a session missing its details is never renewed and keeps its createdAt; and a
 * user holds at most maxPerUser sessions, the least recently used ending first.
 */
interface Topology {
  redis: Redis | Cluster;
  close(): Promise<void>;
}

const topologies: Record<string, () => Promise<Topology>> = {
  'a single Redis': async () => {
    const server = await startRedisServer();
    const redis = new Redis(server.url, { maxRetriesPerRequest: 0 });
    return {
      redis,
      close: async () => {
        redis.disconnect();
        await server.destroy();
      },
    };
  },
  'a Redis Cluster': async () => {
    const cluster = await startRedisCluster();
    const redis = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 0 } });
    return {
      redis,
      close: async () => {
        redis.disconnect();
        await cluster.destroy();
      },
    };
  },
};

const user = () => `end_${randomBytes(4).toString('hex')}`;

describe.each(Object.keys(topologies))('ending sessions on %s', (name) => {
  let topology: Topology;
  beforeAll(async () => {
    topology = await (topologies[name] as () => Promise<Topology>)();
  }, 60_000);
  afterAll(() => topology?.close());
  const redis = () => topology.redis;

  describe.each(SCHEMES)('scheme %s', (scheme: TokenScheme) => {
    const keys = layoutOf(scheme);
    /** The auth service's side: its store, with its SESSION_MAX_AGE and SESSION_MAX_PER_USER. */
    const service = (options: Partial<SessionStoreOptions> = {}) =>
      new SessionStore({ redis: redis(), scheme, ...options });
    const tokenOf = (username: string) =>
      scheme === 'md5' ? md5Token(username, randomBytes(6).toString('hex')) : randomToken();
    /** A login as the auth service makes it: the session, then, answered, the trim to the cap. */
    const login = async (username: string, ttlSeconds = 600, options = {}) => {
      const token = tokenOf(username);
      const store = service(options);
      expect(await store.create(token, username, ttlSeconds)).not.toBeNull();
      await store.trim(token, username);
      return token;
    };

    it('fails a login that read the password hash before a change, leaving nothing of its session', async () => {
      const alice = user();
      const stamp = await service().stamp(alice);
      await service().changeCredentials(alice);
      const token = tokenOf(alice);
      expect(await service().create(token, alice, 600, undefined, stamp)).toBeNull();
      expect(await redis().exists(keys.session(token))).toBe(0);
      expect(await redis().exists(keys.metadata(token))).toBe(0);
      if (scheme === 'random')
        expect(await redis().sismember(keys.index(alice), keys.member(token))).toBe(0);
      expect(await createSessionValidator({ redis: redis(), scheme }).validate(token)).toBeNull();

      // A login that began after the change is not held back by it.
      const later = await service().stamp(alice);
      expect(
        (await service().create(tokenOf(alice), alice, 600, undefined, later))?.expiresIn,
      ).toBe(600);
      // Nor one of another user, nor one with no change at all.
      const bob = user();
      const bobStamp = await service().stamp(bob);
      expect((await service().create(tokenOf(bob), bob, 600, undefined, bobStamp))?.expiresIn).toBe(
        600,
      );
    });

    if (scheme === 'md5') {
      it("retires the old password's token: no racing login writes it again, a later one may", async () => {
        const alice = user();
        const old = md5Token(alice, 'old-password');
        const racing = await service().stamp(alice);
        expect((await service().create(old, alice, 600))?.expiresIn).toBe(600);
        await service().changeCredentials(alice, old);
        expect(await redis().exists(keys.session(old))).toBe(0);
        // The racing login's session is never written, not even for a moment.
        expect(await service().create(old, alice, 600, undefined, racing)).toBeNull();
        expect(await redis().exists(keys.session(old))).toBe(0);
        // Ending anything of it keeps the marker.
        await createUserSessions({ redis: redis(), scheme }).endAll(alice, old);
        expect(await service().create(old, alice, 600, undefined, racing)).toBeNull();
        // A login that began after the change (the password set back to the old one) may.
        const later = await service().stamp(alice);
        expect((await service().create(old, alice, 600, undefined, later))?.expiresIn).toBe(600);
        expect(await createSessionValidator({ redis: redis(), scheme }).validate(old)).toEqual({
          username: alice,
        });
      });
    }

    it('keeps the credentials value no longer than a minute', async () => {
      const alice = user();
      await service().changeCredentials(alice);
      const left = await redis().pttl(
        `${scheme === 'md5' ? '' : 'session:'}credentials:${alice.toLowerCase()}`,
      );
      expect(left).toBeGreaterThan(55_000);
      expect(left).toBeLessThanOrEqual(60_000);
    });

    it('ends a session at the end its login stored, whatever a sliding guard of its own says', async () => {
      // The service caps sessions at 2 s; another team's guard slides by 60 s with the default max age.
      const token = await login(user(), 60, { maxAgeSeconds: 2 });
      const foreign = createSessionValidator({
        redis: redis(),
        scheme,
        sliding: true,
        ttlSeconds: 60,
      });
      const started = Date.now();
      const answers: boolean[] = [];
      while (Date.now() < started + 2600) {
        answers.push((await foreign.validate(token)) !== null);
        await sleep(200);
      }
      expect(answers[0]).toBe(true);
      expect(answers.at(-1)).toBe(false);
      expect(await redis().exists(keys.session(token))).toBe(0);
      // Nor does the guard with a shorter limit of its own keep it past its own.
      const short = await login(user(), 60);
      const own = createSessionValidator({
        redis: redis(),
        scheme,
        sliding: true,
        ttlSeconds: 60,
        maxAgeSeconds: 1,
      });
      await sleep(1100);
      expect(await own.validate(short)).toBeNull();
    });

    it('never renews a session whose details are missing, and keeps a createdAt once written', async () => {
      const alice = user();
      const token = await login(alice, 30);
      const sliding = createSessionValidator({
        redis: redis(),
        scheme,
        sliding: true,
        ttlSeconds: 3600,
      });
      const list = async () =>
        (await createUserSessions({ redis: redis(), scheme }).list(alice, token))[0];

      await redis().del(keys.metadata(token));
      expect(await sliding.validate(token)).toEqual({ username: alice });
      expect(await redis().pttl(keys.session(token))).toBeLessThanOrEqual(30_000);
      const first = await list();
      expect(Date.parse(first?.expiresAt as string)).toBeLessThanOrEqual(Date.now() + 30_000);
      for (let i = 0; i < 3; i++) expect(await sliding.validate(token)).not.toBeNull();
      expect(await redis().pttl(keys.session(token))).toBeLessThanOrEqual(30_000);
      expect((await list())?.createdAt).toBe(first?.createdAt);

      // Details from before sessions stored their end: createdAt stays, the end is where it is now.
      await redis().hdel(keys.metadata(token), 'endsAt');
      const createdAt = Date.now() - 5000;
      await redis().hset(keys.metadata(token), 'createdAt', String(createdAt));
      expect(await sliding.validate(token)).not.toBeNull();
      expect(await sliding.validate(token)).not.toBeNull();
      expect(await redis().pttl(keys.session(token))).toBeLessThanOrEqual(30_000);
      expect((await list())?.createdAt).toBe(new Date(createdAt).toISOString());
    });

    it('lists a session whose details were lost with the createdAt its key keeps', async () => {
      const alice = user();
      const token = await login(alice, 600);
      const began = Number(await redis().hget(keys.metadata(token), 'createdAt'));
      await sleep(1200);
      await redis().del(keys.metadata(token));
      const sessions = createUserSessions({ redis: redis(), scheme, ttlSeconds: 600 });
      const [listed] = await sessions.list(alice, token);
      // The key's time left is read a moment after the login wrote it: within that moment.
      expect(Math.abs(Date.parse(listed?.createdAt as string) - began)).toBeLessThan(100);
      expect((await sessions.list(alice, token))[0]?.createdAt).toBe(listed?.createdAt);
    });

    it('ends the session idle longest, to the second, not the one used since its last touch', async () => {
      if (scheme === 'md5') return; // one password, one token: the cap is never reached
      const alice = user();
      const capped = { maxPerUser: 2 };
      // lastSeenAt is written once a minute: both keep the one their login wrote.
      const guard = createSessionValidator({ redis: redis(), scheme, touchSeconds: 60 });
      const used = await login(alice, 600, capped);
      const idle = await login(alice, 600, capped);
      await sleep(1500);
      expect(await guard.validate(used)).not.toBeNull();
      await sleep(1500);
      // Listing them is no use of them.
      expect(await createUserSessions({ redis: redis() }).list(alice, used)).toHaveLength(2);
      const fresh = await login(alice, 600, capped);
      const live = await Promise.all(
        [used, idle, fresh].map(async (t) => (await guard.validate(t)) !== null),
      );
      expect(live).toEqual([true, false, true]);
    });

    it('ends the least recently used sessions of a user beyond maxPerUser', async () => {
      const alice = user();
      const capped = { maxPerUser: 3 };
      const guard = createSessionValidator({ redis: redis(), scheme, touchSeconds: 1 });
      const [a, b, c] = [
        await login(alice, 600, capped),
        await login(alice, 600, capped),
        await login(alice, 600, capped),
      ];
      await sleep(1100);
      // Used since: a and c; b not.
      expect(await guard.validate(a)).not.toBeNull();
      expect(await guard.validate(c)).not.toBeNull();
      const d = await login(alice, 600, capped);
      const live = async (tokens: string[]) =>
        Promise.all(tokens.map(async (t) => (await guard.validate(t)) !== null));
      if (scheme === 'md5') {
        // One password, one token: the cap is never reached.
        expect(await live([a, b, c, d])).toEqual([true, true, true, true]);
        return;
      }
      expect(await live([a, b, c, d])).toEqual([true, false, true, true]);
      expect((await redis().smembers(keys.index(alice))).sort()).toEqual(
        [a, c, d].map(keys.member).sort(),
      );
      const e = await login(alice, 600, capped);
      expect(await live([a, c, d, e])).toEqual([false, true, true, true]);
      expect(await createUserSessions({ redis: redis() }).list(alice, e)).toHaveLength(3);
    });
  });
});
