import { startMariaDbServer } from './mariadb-server.js';
import { startRedisServer, type TestServer } from './servers.js';

/**
 * Vitest global setup: one throwaway Redis and one MariaDB for the whole run,
 * unless TEST_REDIS_URL / TEST_MYSQL_URL already name servers to use. Either
 * way the two variables hold the addresses when the test files run.
 */
export async function setupTestServers(): Promise<() => Promise<void>> {
  const started: TestServer[] = [];
  const urlOf = async (given: string | undefined, start: () => Promise<TestServer>) => {
    if (given) return given;
    const server = await start();
    started.push(server);
    return server.url;
  };
  process.env.TEST_REDIS_URL = await urlOf(process.env.TEST_REDIS_URL, startRedisServer);
  process.env.TEST_MYSQL_URL = await urlOf(process.env.TEST_MYSQL_URL, startMariaDbServer);
  return async () => {
    await Promise.all(started.map((server) => server.destroy()));
  };
}
