import { startRedisServer, type TestServer } from '@svc/test-kit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';

/**
 * A client of a Redis server of the suite's own (the file, or the describe this
 * is called in), so that its keys and command counts are the suite's alone.
 * The server starts in the suite's beforeAll: the client is there from its
 * hooks and tests on.
 */
export function ownRedis(): () => Redis {
  let server: TestServer | undefined;
  let redis: Redis | undefined;
  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url, { maxRetriesPerRequest: 0 });
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.destroy();
  });
  return () => {
    if (!redis) throw new Error('The Redis server starts in beforeAll: use it in a hook or a test');
    return redis;
  };
}
