import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnreachableError } from '../src/app-error.js';
import { connectRedis } from '../src/redis.js';
import {
  createTestRedis,
  freePort,
  startRedisServer,
  type TestServer,
} from '../src/testing/index.js';

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
    const started = Date.now();
    const attempt = connectRedis({ host: '127.0.0.1', port, db: 0 });
    await expect(attempt).rejects.toThrow(StoreUnreachableError);
    await expect(attempt).rejects.toThrow(`cannot reach Redis at 127.0.0.1:${port} (ECONNREFUSED)`);
    expect(Date.now() - started).toBeLessThan(5000);
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
  });
});
