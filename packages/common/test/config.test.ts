import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { boolVar, ConfigError, httpEnv, intVar, loadConfig } from '../src/config.js';
import { mysqlEnv } from '../src/mysql-settings.js';
import { redisEnv } from '../src/redis-settings.js';

const schema = z.object({
  ...httpEnv(3000),
  ...mysqlEnv('judge'),
  ...redisEnv,
  TOKEN_TTL: intVar(3600, 1),
  TOKEN_SLIDING: boolVar(false),
});

describe('loadConfig', () => {
  it('applies every default to an empty environment', () => {
    const config = loadConfig(schema, {});
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: '0.0.0.0',
      LOG_LEVEL: 'info',
      BODY_LIMIT_KB: 100,
      MYSQL_HOST: '127.0.0.1',
      MYSQL_PORT: 3306,
      MYSQL_USER: 'root',
      MYSQL_PASSWORD: '',
      MYSQL_DATABASE: 'judge',
      REDIS_HOST: '127.0.0.1',
      REDIS_PORT: 6379,
      REDIS_DB: 0,
      TOKEN_TTL: 3600,
      TOKEN_SLIDING: false,
    });
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('parses the values that are set and treats empty strings as unset', () => {
    const config = loadConfig(schema, {
      PORT: '8081',
      REDIS_DB: '',
      REDIS_URL: 'redis://cache:6380/2',
      TOKEN_SLIDING: 'true',
      MYSQL_DATABASE: 'life_service',
    });
    expect(config.PORT).toBe(8081);
    expect(config.REDIS_DB).toBe(0);
    expect(config.REDIS_URL).toBe('redis://cache:6380/2');
    expect(config.TOKEN_SLIDING).toBe(true);
    expect(config.MYSQL_DATABASE).toBe('life_service');
  });

  it('lists every bad variable with what it expects in one error', () => {
    const attempt = () =>
      loadConfig(schema, {
        PORT: 'eighty',
        TOKEN_TTL: '0',
        MYSQL_DATABASE: 'bad-name;',
        TOKEN_SLIDING: 'maybe',
        LOG_LEVEL: 'loud',
      });
    expect(attempt).toThrow(ConfigError);
    const message = (() => {
      try {
        attempt();
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(message).toContain('Invalid configuration:');
    expect(message).toContain('PORT: expected an integer from 0 to 65535 (got "eighty")');
    expect(message).toContain('TOKEN_TTL: expected an integer from 1 to');
    expect(message).toContain('MYSQL_DATABASE: expected 1 to 64 letters, digits or _');
    expect(message).toContain('TOKEN_SLIDING: expected true or false');
    expect(message).toContain('LOG_LEVEL: expected one of fatal, error, warn');
  });

  it('shows the value of a variable that merely mentions a secret word', () => {
    const ttl = z.object({ TOKEN_TTL: intVar(3600, 1) });
    expect(() => loadConfig(ttl, { TOKEN_TTL: '0' })).toThrow(
      'TOKEN_TTL: expected an integer from 1 to',
    );
    expect(() => loadConfig(ttl, { TOKEN_TTL: '0' })).toThrow('(got "0")');
  });

  it('never prints the value of a secret', () => {
    const strict = z.object({ REDIS_PASSWORD: z.string().min(20, 'expected 20 characters') });
    expect(() => loadConfig(strict, { REDIS_PASSWORD: 'hunter2' })).toThrow(
      'REDIS_PASSWORD: expected 20 characters (got set)',
    );
    const token = z.object({ PLATFORM_ADMIN_TOKEN: z.string().min(20, 'expected 20 characters') });
    expect(() => loadConfig(token, { PLATFORM_ADMIN_TOKEN: 'short-secret' })).toThrow('(got set)');
  });
});
