import { fileURLToPath } from 'node:url';
import { freePort, runMain } from '@svc/test-kit';
import { describe, expect, it } from 'vitest';
import { loadPlatformConfig } from '../src/config.js';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

const startMain = (env: Record<string, string>) => runMain(main, env);

describe('start-up', () => {
  it('exits at once with one line naming the MySQL address and variables when MySQL is unreachable', async () => {
    const port = await freePort();
    const result = await startMain({ MYSQL_HOST: '127.0.0.1', MYSQL_PORT: String(port) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `platform: cannot reach MySQL at 127.0.0.1:${port} (ECONNREFUSED); set MYSQL_HOST, MYSQL_PORT, MYSQL_USER, MYSQL_PASSWORD\n`,
    );
    expect(result.stdout).toBe('');
    expect(result.ms).toBeLessThan(8000);
  });

  it('exits listing every bad variable when the environment is invalid', async () => {
    const result = await startMain({ PORT: 'http', MYSQL_PORT: '99999' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('platform: Invalid configuration:');
    expect(result.stderr).toContain('PORT: expected an integer from 0 to 65535 (got "http")');
    expect(result.stderr).toContain(
      'MYSQL_PORT: expected an integer from 1 to 65535 (got "99999")',
    );
  });

  it('exits naming EVENT_RETENTION_DAYS when it is shorter than the webhook retries', async () => {
    const port = await freePort();
    const result = await startMain({ EVENT_RETENTION_DAYS: '1', MYSQL_PORT: String(port) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'platform: Invalid configuration:\n  EVENT_RETENTION_DAYS: expected at least 2 days: a webhook delivery is tried 8 times over 27.6 hours, and retention may not be shorter (got "1")\n',
    );
  });

  it('takes an EVENT_RETENTION_DAYS as long as the webhook retries, in whole days', () => {
    expect(loadPlatformConfig({ EVENT_RETENTION_DAYS: '2' }).EVENT_RETENTION_DAYS).toBe(2);
    expect(loadPlatformConfig({}).EVENT_RETENTION_DAYS).toBe(30);
  });

  it('exits naming PLATFORM_ADMIN_TOKEN, and not its value, when the token is too short', async () => {
    const result = await startMain({ PLATFORM_ADMIN_TOKEN: 'fifteen-chars-x' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'platform: Invalid configuration:\n  PLATFORM_ADMIN_TOKEN: expected at least 16 characters (got set)\n',
    );
  });
});
