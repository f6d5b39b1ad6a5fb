import {
  type FaultProxy,
  startFaultProxy,
  startRedisCluster,
  startRedisSentinel,
  type TestRedisCluster,
  type TestRedisSentinel,
} from '@svc/test-kit';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../src/redis.js';

describe('connectRedis to a three-master Redis Cluster', () => {
  let cluster: TestRedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(() => cluster?.destroy());

  it('is a Cluster client that reaches keys in every slot range', async () => {
    const redis = await connectRedis({ host: '', port: 0, db: 0, clusterNodes: cluster.nodes });
    try {
      expect(redis).toBeInstanceOf(Cluster);
      // A command whose answer was lost is never sent again after the answer went out.
      expect((redis as Cluster).options.redisOptions?.autoResendUnfulfilledCommands).toBe(false);
      const keys = Array.from({ length: 30 }, (_, i) => `probe:${i}`);
      for (const key of keys) await redis.set(key, key);
      for (const key of keys) expect(await redis.get(key)).toBe(key);
      const owners = await Promise.all(
        cluster.nodes.map(async ({ port }) => {
          const node = new Redis({ port, host: '127.0.0.1' });
          const size = await node.dbsize();
          node.disconnect();
          return size;
        }),
      );
      expect(owners.every((size) => size > 0)).toBe(true);
    } finally {
      redis.disconnect();
    }
  });
});

describe('connectRedis through Sentinel', () => {
  let sentinel: TestRedisSentinel;
  beforeAll(async () => {
    sentinel = await startRedisSentinel();
  }, 60_000);
  afterAll(() => sentinel?.destroy());

  it('finds the primary, and follows a failover without a new client', async () => {
    const redis = await connectRedis({
      host: '',
      port: 0,
      db: 0,
      sentinels: sentinel.sentinels,
      sentinelName: sentinel.name,
    });
    try {
      expect(redis.options.autoResendUnfulfilledCommands).toBe(false);
      await redis.set('before', '1');
      await sentinel.sync();
      const promoted = await sentinel.failover();
      expect(sentinel.dataPorts).toContain(promoted);
      await expect
        .poll(() => redis.set('after', '2').catch((err: Error) => err.message), { timeout: 15_000 })
        .toBe('OK');
      expect(await redis.get('before')).toBe('1');
      const direct = new Redis({ port: promoted, host: '127.0.0.1' });
      expect(await direct.get('after')).toBe('2');
      direct.disconnect();
    } finally {
      redis.disconnect();
    }
  }, 60_000);

  it('follows a killed primary even when a failover notice cuts short its question to a sentinel', async () => {
    // Sentinels 300 ms away each way: the client spends most of its reconnect loop asking
    // them for the primary, where a +switch-master notice used to end it for good.
    const proxies: FaultProxy[] = await Promise.all(
      sentinel.sentinels.map((target) => startFaultProxy({ target, delayMs: 300 })),
    );
    const redis = await connectRedis({
      host: '',
      port: 0,
      db: 0,
      sentinels: proxies.map(({ host, port }) => ({ host, port })),
      sentinelName: sentinel.name,
    });
    try {
      await redis.set('before-kill', '1');
      await sentinel.sync();
      const old = await sentinel.stopPrimary('kill');
      await sentinel.waitForPrimaryOtherThan(old);
      await expect
        .poll(() => redis.set('after-kill', '2').catch((err: Error) => err.message), {
          timeout: 20_000,
          interval: 200,
        })
        .toBe('OK');
      expect(await redis.get('before-kill')).toBe('1');
    } finally {
      redis.disconnect();
      await Promise.all(proxies.map((proxy) => proxy.close()));
    }
  }, 60_000);
});
