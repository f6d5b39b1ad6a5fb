import { randomBytes } from 'node:crypto';
import { startRedisCluster, startRedisServer } from '@svc/test-kit';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSessionValidator,
  createTestSession,
  createUserSessions,
  randomToken,
  SessionStore,
  SessionStoreError,
} from '../src/index.js';
import { SCHEMES } from './support/layout.js';
import { ownRedis } from './support/own-redis.js';

/*
 * One conformance suite for what the package offers another team (list a user's
 * sessions, end one, end the others, end all, and the guard's view of them), run
 * against a single Redis and a three-master Redis Cluster in both schemes: a
 * script that touched two slots would fail here with CROSSSLOT.
 */
interface Topology {
  redis: Redis | Cluster;
  /** Every key on every node, with its remaining lifetime in ms. */
  lifetimes(): Promise<Map<string, number>>;
  /** Every node forgets its scripts, as after a restart or a failover. */
  flushScripts(): Promise<void>;
  close(): Promise<void>;
}

async function lifetimesOn(nodes: Redis[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const node of nodes) {
    for (const key of await node.keys('*')) found.set(key, await node.pttl(key));
  }
  return found;
}

const topologies: Record<string, () => Promise<Topology>> = {
  'a single Redis': async () => {
    const server = await startRedisServer();
    const redis = new Redis(server.url, { maxRetriesPerRequest: 0 });
    return {
      redis,
      lifetimes: () => lifetimesOn([redis]),
      flushScripts: async () => {
        await redis.script('FLUSH');
      },
      close: async () => {
        redis.disconnect();
        await server.destroy();
      },
    };
  },
  'a Redis Cluster': async () => {
    const cluster = await startRedisCluster();
    const redis = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 0 } });
    const nodes = cluster.nodes.map(({ port }) => new Redis({ port, host: '127.0.0.1' }));
    return {
      redis,
      lifetimes: () => lifetimesOn(nodes),
      flushScripts: async () => {
        await Promise.all(nodes.map((node) => node.script('FLUSH')));
      },
      close: async () => {
        redis.disconnect();
        for (const node of nodes) node.disconnect();
        await cluster.destroy();
      },
    };
  },
};

describe.each(Object.keys(topologies))('user sessions on %s', (name) => {
  let topology: Topology;
  beforeAll(async () => {
    topology = await (topologies[name] as () => Promise<Topology>)();
  }, 60_000);
  afterAll(() => topology?.close());

  describe.each(SCHEMES)('scheme %s', (scheme) => {
    const sessions = () => createUserSessions({ redis: topology.redis, scheme });
    const guard = () => createSessionValidator({ redis: topology.redis, scheme });
    const user = () => `team_${randomBytes(4).toString('hex')}`;
    /** A session as the auth service's login writes it; in md5 one per password. */
    const login = (username: string, userAgent?: string) =>
      createTestSession(topology.redis, { username, scheme, userAgent, ip: '198.51.100.4' });
    const allowed = async (tokens: string[]) =>
      Promise.all(tokens.map(async (token) => (await guard().validate(token)) !== null));

    it('lists the live sessions newest first, each with its metadata, the current one marked', async () => {
      const alice = user();
      const tokens = [];
      for (const agent of ['phone', 'lab', 'laptop']) {
        tokens.push(await login(alice, agent));
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      const listed = await sessions().list(alice, tokens[1] as string);
      const expected =
        scheme === 'md5'
          ? [['lab', true]]
          : [
              ['laptop', false],
              ['lab', true],
              ['phone', false],
            ];
      expect(listed.map((s) => [s.userAgent, s.current])).toEqual(expected);
      for (const session of listed) {
        expect(session).toEqual({
          id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
          current: expect.any(Boolean),
          createdAt: expect.stringMatching(/Z$/),
          lastSeenAt: session.createdAt,
          expiresAt: expect.stringMatching(/Z$/),
          userAgent: expect.any(String),
          ip: '198.51.100.4',
        });
        // createdAt is the writer's clock, expiresAt the key's time left: the write's latency apart.
        const lifetime = Date.parse(session.expiresAt) - Date.parse(session.createdAt);
        expect(lifetime).toBeGreaterThan(3_590_000);
        expect(lifetime).toBeLessThan(3_601_000);
      }
    });

    it('ends one session by id, which the guard then refuses; a foreign or unknown id ends nothing', async () => {
      const [alice, bob] = [user(), user()];
      const aliceTokens =
        scheme === 'md5' ? [await login(alice)] : [await login(alice), await login(alice)];
      const bobToken = await login(bob);
      const [bobSession] = await sessions().list(bob, bobToken);
      expect(await sessions().end(alice, aliceTokens[0] as string, bobSession?.id as string)).toBe(
        false,
      );
      expect(await sessions().end(alice, aliceTokens[0] as string, 'A'.repeat(22))).toBe(false);
      expect(await allowed([...aliceTokens, bobToken])).toEqual(
        aliceTokens.map(() => true).concat(true),
      );

      const target = aliceTokens.at(-1) as string;
      const session = (await sessions().list(alice, target)).find((s) => s.current);
      expect(await sessions().end(alice, aliceTokens[0] as string, session?.id as string)).toBe(
        true,
      );
      expect(await guard().validate(target)).toBeNull();
      expect(await sessions().end(alice, aliceTokens[0] as string, session?.id as string)).toBe(
        false,
      );
      if (scheme === 'random') expect(await allowed([aliceTokens[0] as string])).toEqual([true]);
    });

    it('ends the others and keeps the current one, then ends all', async () => {
      const alice = user();
      const tokens = [await login(alice), await login(alice), await login(alice)];
      const current = tokens[0] as string;
      // In md5 the three "logins" are three passwords; only the current one is the user's now.
      expect(await sessions().endOthers(alice, current)).toBe(scheme === 'md5' ? 0 : 2);
      expect(await allowed(tokens)).toEqual(
        scheme === 'md5' ? [true, true, true] : [true, false, false],
      );
      expect(await sessions().endAll(alice, current)).toBe(1);
      expect(await allowed([current])).toEqual([false]);
      expect(await sessions().list(alice, current)).toEqual([]);
    });

    it('gives every key an expiry, and leaves nothing of a user who ended every session', async () => {
      const alice = user();
      const tokens = [await login(alice), await login(alice)];
      for (const token of tokens) await guard().validate(token);
      await createSessionValidator({
        redis: topology.redis,
        scheme,
        sliding: true,
        ttlSeconds: 600,
      }).validate(tokens[0] as string);
      for (const [key, left] of await topology.lifetimes()) expect(left, key).toBeGreaterThan(0);

      for (const token of tokens) await sessions().endAll(alice, token);
      const left = [...(await topology.lifetimes()).keys()];
      expect(left.filter((key) => key.includes(alice.toLowerCase()))).toEqual([]);
      for (const token of tokens) expect(left.filter((key) => key.includes(token))).toEqual([]);
    });

    it('loads its scripts again where a server has forgotten them', async () => {
      const alice = user();
      const token = await login(alice);
      await topology.flushScripts();
      expect(await guard().validate(token)).toEqual({ username: alice });
      await topology.flushScripts();
      expect(await sessions().list(alice, token)).toHaveLength(1);
      await topology.flushScripts();
      expect(await sessions().endAll(alice, token)).toBe(1);
    });

    it('rejects with a SessionStoreError when Redis fails', async () => {
      const broken =
        topology.redis instanceof Cluster
          ? new Cluster([{ host: '127.0.0.1', port: 1 }], { clusterRetryStrategy: () => null })
          : new Redis({
              port: 1,
              maxRetriesPerRequest: 0,
              retryStrategy: () => null,
              lazyConnect: true,
            });
      broken.on('error', () => {});
      const down = createUserSessions({ redis: broken, scheme });
      const token = scheme === 'md5' ? 'a'.repeat(32) : 'a'.repeat(64);
      await expect(down.list('alice', token)).rejects.toBeInstanceOf(SessionStoreError);
      await expect(down.endAll('alice', token)).rejects.toBeInstanceOf(SessionStoreError);
      broken.disconnect();
    });
  });
});

describe('a login of a user who holds many sessions', () => {
  const redis = ownRedis();

  /** Commands the server ran while `work` ran. */
  async function commandsDuring(work: () => Promise<unknown>): Promise<number> {
    const processed = async () =>
      Number(/total_commands_processed:(\d+)/.exec(await redis().info('stats'))?.[1]);
    const before = await processed();
    await work();
    // Minus the INFO that reads the count after.
    return (await processed()) - before - 1;
  }

  it('costs the same few commands with 600 sessions as with one, and keeps the index bounded', async () => {
    // A cap above what the test holds (SESSION_MAX_PER_USER): the cap's own test is below.
    const store = new SessionStore({ redis: redis(), maxPerUser: 1000 });
    const login = async (ttlSeconds = 3600) => {
      const token = randomToken();
      await store.create(token, 'busy_user', ttlSeconds);
      await store.trim(token, 'busy_user');
    };
    await login();
    const first = await commandsDuring(login);
    for (let i = 0; i < 600; i++) await login(i < 300 ? 1 : 3600);
    const later = await commandsDuring(login);
    expect(later).toBeLessThanOrEqual(first + 16);

    // Half of them expire; later logins drop their hashes as they go.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (let i = 0; i < 200; i++) await login();
    // 503 live: 3 above, 300 of the 600, these 200. Of the 300 expired, a few may remain.
    expect(await redis().scard('session:user:busy_user')).toBeLessThan(503 + 50);
    const listed = await createUserSessions({ redis: redis() }).list('busy_user', 'f'.repeat(64));
    expect(listed).toHaveLength(503);
    expect(await redis().scard('session:user:busy_user')).toBe(503);
  }, 30_000);
});
