import { fileURLToPath } from 'node:url';
import { freePort, runMain } from '@svc/test-kit';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

const startMain = (env: Record<string, string>) => runMain(main, env);

describe('start-up', () => {
  it('exits at once with one line naming the Redis address and variables when Redis is unreachable', async () => {
    const port = await freePort();
    const result = await startMain({
      REDIS_HOST: '127.0.0.1',
      REDIS_PORT: String(port),
      REDIS_URL: '',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `auth: cannot reach Redis at 127.0.0.1:${port} (ECONNREFUSED); set REDIS_URL, or REDIS_HOST, REDIS_PORT, REDIS_PASSWORD, REDIS_DB\n`,
    );
    expect(result.stdout).toBe('');
    expect(result.ms).toBeLessThan(8000);
  });

  it('exits at once naming the MySQL address when Redis answers and MySQL does not', async () => {
    const port = await freePort();
    const result = await startMain({
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      MYSQL_HOST: '127.0.0.1',
      MYSQL_PORT: String(port),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `auth: cannot reach MySQL at 127.0.0.1:${port} (ECONNREFUSED); set MYSQL_HOST, MYSQL_PORT, MYSQL_USER, MYSQL_PASSWORD\n`,
    );
    expect(result.stdout).toBe('');
    expect(result.ms).toBeLessThan(8000);
  });

  it('exits listing every bad variable when the environment is invalid', async () => {
    const result = await startMain({ PORT: 'http', MYSQL_PORT: '99999' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('auth: Invalid configuration:');
    expect(result.stderr).toContain('PORT: expected an integer from 0 to 65535 (got "http")');
    expect(result.stderr).toContain(
      'MYSQL_PORT: expected an integer from 1 to 65535 (got "99999")',
    );
  });

  it('exits when TOKEN_TTL is not a positive integer', async () => {
    for (const ttl of ['0', '-1', '2.5']) {
      const result = await startMain({ TOKEN_TTL: ttl });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('auth: Invalid configuration:');
      expect(result.stderr).toContain('TOKEN_TTL: expected an integer from 1 to');
    }
  });
});
