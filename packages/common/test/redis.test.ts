import {
  captureLogs,
  createTestRedis,
  freePort,
  startFaultProxy,
  startRedisServer,
  type TestServer,
} from '@svc/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../src/config.js';
import { StoreUnreachableError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';
import { connectRedis } from '../src/redis.js';
import { redisEnv, redisEnvRules, redisSettingsFrom } from '../src/redis-settings.js';

describe('Redis variables', () => {
  const schema = z.object(redisEnv).superRefine(redisEnvRules);
  const settings = (env: Record<string, string>) => redisSettingsFrom(loadConfig(schema, env));
  const message = (env: Record<string, string>) => {
    try {
      loadConfig(schema, env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('select one node by default, with neither cluster nor sentinels', () => {
    expect(settings({})).toMatchObject({ host: '127.0.0.1', port: 6379, db: 0 });
    expect(settings({}).clusterNodes).toBeUndefined();
    expect(settings({}).sentinels).toBeUndefined();
  });

  it('read REDIS_CLUSTER_NODES as a list of addresses, host names and IPv6 included', () => {
    expect(
      settings({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b:7001,[::1]:7002' }).clusterNodes,
    ).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-b', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
  });

  it('read REDIS_SENTINELS with REDIS_SENTINEL_NAME', () => {
    expect(
      settings({ REDIS_SENTINELS: '127.0.0.1:26379,127.0.0.1:26380', REDIS_SENTINEL_NAME: 'main' }),
    ).toMatchObject({
      sentinels: [
        { host: '127.0.0.1', port: 26379 },
        { host: '127.0.0.1', port: 26380 },
      ],
      sentinelName: 'main',
    });
  });

  it('reject malformed address lists, naming the variable', () => {
    for (const bad of ['redis-a', 'redis-a:', 'a:7000,,b:7000', 'a:70000', 'a:7000;b:7000']) {
      expect(message({ REDIS_CLUSTER_NODES: bad })).toContain(
        'REDIS_CLUSTER_NODES: expected a comma list of host:port',
      );
    }
  });

  it('require the master name with sentinels, and sentinels with the name', () => {
    expect(message({ REDIS_SENTINELS: '127.0.0.1:26379' })).toContain(
      'REDIS_SENTINEL_NAME: required with REDIS_SENTINELS',
    );
    expect(message({ REDIS_SENTINEL_NAME: 'main' })).toContain(
      'REDIS_SENTINELS: required with REDIS_SENTINEL_NAME',
    );
  });

  it('refuse cluster and sentinels together', () => {
    expect(
      message({
        REDIS_CLUSTER_NODES: '127.0.0.1:7000',
        REDIS_SENTINELS: '127.0.0.1:26379',
        REDIS_SENTINEL_NAME: 'main',
      }),
    ).toContain('REDIS_CLUSTER_NODES: set either REDIS_CLUSTER_NODES or REDIS_SENTINELS');
  });
});

describe('connectRedis', () => {
  it('connects by URL and by host, port and database index alike', async () => {
    const testRedis = await createTestRedis();
    const byUrl = await connectRedis({ ...testRedis.settings });
    const { url: _url, ...parts } = testRedis.settings;
    const byParts = await connectRedis(parts);
    try {
      await byUrl.set('probe', 'from-url');
      expect(await byParts.get('probe')).toBe('from-url');
      expect(byParts.options.db).toBe(testRedis.settings.db);
    } finally {
      byUrl.disconnect();
      byParts.disconnect();
    }
  });

  it('fails fast with one line naming the address and the variables when nothing listens', async () => {
    const port = await freePort();
    const logs = captureLogs((sink) => createLogger({ name: 'redis-test' }, sink));
    const started = Date.now();
    const attempt = connectRedis({ host: '127.0.0.1', port, db: 0 }, logs.logger);
    await expect(attempt).rejects.toThrow(StoreUnreachableError);
    await expect(attempt).rejects.toThrow(`cannot reach Redis at 127.0.0.1:${port} (ECONNREFUSED)`);
    expect(Date.now() - started).toBeLessThan(5000);
    // The error is start-up's one line; a log line too would make two.
    expect(logs.entries()).toEqual([]);
  });

  it('fails fast naming the cluster nodes and the variable when no node answers', async () => {
    const ports = [await freePort(), await freePort()];
    const started = Date.now();
    const attempt = connectRedis({
      host: '',
      port: 0,
      db: 0,
      clusterNodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    });
    await expect(attempt).rejects.toThrow(StoreUnreachableError);
    await expect(attempt).rejects.toThrow(
      `cannot reach Redis Cluster at 127.0.0.1:${ports[0]},127.0.0.1:${ports[1]} (None of startup nodes is available); set REDIS_CLUSTER_NODES`,
    );
    await expect(attempt).rejects.toThrow(/^[^\n]*$/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('fails fast naming the sentinels and the variables when no sentinel answers', async () => {
    const port = await freePort();
    const started = Date.now();
    const attempt = connectRedis({
      host: '',
      port: 0,
      db: 0,
      sentinels: [{ host: '127.0.0.1', port }],
      sentinelName: 'main',
    });
    await expect(attempt).rejects.toThrow(StoreUnreachableError);
    await expect(attempt).rejects.toThrow(
      `cannot reach Redis primary "main" through Sentinel at 127.0.0.1:${port} (no answer within`,
    );
    await expect(attempt).rejects.toThrow('set REDIS_SENTINELS, REDIS_SENTINEL_NAME');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('never sends again, after a reconnect, a command whose connection was lost', async () => {
    const { url: _, ...settings } = (await createTestRedis()).settings;
    const proxy = await startFaultProxy({ target: settings });
    const through = { ...settings, host: proxy.host, port: proxy.port, commandTimeoutMs: 300 };
    const redis = await connectRedis(through);
    const direct = await connectRedis(settings);
    try {
      // The SET never arrives; the reconnect hangs in its ready check until the SET has failed.
      const cut = proxy.fault('resent-probe', 'cut-before');
      const readyCheck = proxy.fault('info', 'stall');
      const sent = redis.set('resent-probe', '1');
      await cut.met;
      await expect(sent).rejects.toThrow('Command timed out');
      readyCheck.release();
      await expect.poll(() => redis.ping().catch(() => 'down'), { timeout: 5000 }).toBe('PONG');
      expect(await direct.exists('resent-probe')).toBe(0);
    } finally {
      redis.disconnect();
      direct.disconnect();
      await proxy.close();
    }
  });

  describe('when the server goes away after start', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startRedisServer();
    });
    afterAll(async () => {
      await server.destroy();
    });

    it('fails commands at once while it is down and serves again once it is back', async () => {
      const redis = await connectRedis({ url: server.url, host: '', port: 0, db: 0 });
      try {
        await redis.set('k', 'v');
        await server.stop();
        const started = Date.now();
        await expect(redis.get('k')).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(2500);
        await server.start();
        await expect.poll(() => redis.ping().catch(() => 'down'), { timeout: 5000 }).toBe('PONG');
      } finally {
        redis.disconnect();
      }
    });

    it('logs the outage once when reconnecting fails, and once when it is over', async () => {
      const logs = captureLogs((sink) => createLogger({ name: 'redis-test' }, sink));
      const redis = await connectRedis({ url: server.url, host: '', port: 0, db: 0 }, logs.logger);
      const messages = () => logs.entries().map((entry) => [entry.level, entry.msg]);
      try {
        expect(messages()).toEqual([]);
        await server.stop();
        await expect.poll(messages, { timeout: 5000 }).toEqual([[40, 'redis connection lost']]);
        await server.start();
        await expect.poll(messages, { timeout: 5000 }).toEqual([
          [40, 'redis connection lost'],
          [30, 'redis connection restored'],
        ]);
      } finally {
        redis.disconnect();
      }
    });
  });
});
