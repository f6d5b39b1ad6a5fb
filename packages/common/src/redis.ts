import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { z } from 'zod';
import { StoreUnreachableError } from './app-error.js';
import { intVar, stringVar } from './config.js';

/** REDIS_URL, or REDIS_HOST / REDIS_PORT / REDIS_PASSWORD / REDIS_DB. */
export const redisEnv = {
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL')
    .optional(),
  REDIS_HOST: stringVar('127.0.0.1'),
  REDIS_PORT: intVar(6379, 1, 65535),
  REDIS_PASSWORD: z.string().optional(),
  REDIS_DB: intVar(0, 0, 100_000),
  REDIS_COMMAND_TIMEOUT_MS: intVar(2000, 50, 60_000),
};

export type RedisEnv = z.infer<z.ZodObject<typeof redisEnv>>;

export interface RedisSettings {
  url?: string;
  host: string;
  port: number;
  password?: string;
  db: number;
  commandTimeoutMs?: number;
}

export function redisSettingsFrom(env: RedisEnv): RedisSettings {
  return {
    url: env.REDIS_URL,
    host: env.REDIS_HOST,
    port: env.REDIS_PORT,
    password: env.REDIS_PASSWORD,
    db: env.REDIS_DB,
    commandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS,
  };
}

/**
 * Commands fail at once while the connection is down (no offline queue), so a
 * request answers 503 quickly instead of waiting for a reconnect that may not come.
 */
function baseOptions(settings: RedisSettings): RedisOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 3000,
    commandTimeout: settings.commandTimeoutMs ?? 2000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  };
}

export function createRedis(settings: RedisSettings): Redis {
  const options = baseOptions(settings);
  if (settings.url) return new Redis(settings.url, options);
  return new Redis({
    ...options,
    host: settings.host,
    port: settings.port,
    password: settings.password,
    db: settings.db,
  });
}

function addressOf(settings: RedisSettings): string {
  if (!settings.url) return `${settings.host}:${settings.port}`;
  const url = new URL(settings.url);
  return `${url.hostname}:${url.port || 6379}`;
}

/**
 * Connects before the service listens; a server that does not answer fails
 * start-up in a few seconds with one line naming the address and variables.
 * Later outages are logged (once per outage) and retried in the background.
 */
export async function connectRedis(settings: RedisSettings, logger?: Logger): Promise<Redis> {
  const redis = createRedis(settings);
  let down = false;
  let lastError: Error | undefined;
  redis.on('error', (err) => {
    lastError = err;
    if (down) return;
    down = true;
    logger?.warn({ err: { message: err.message } }, 'redis connection lost');
  });
  redis.on('ready', () => {
    if (down) logger?.info('redis connection restored');
    down = false;
  });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new StoreUnreachableError(
      'Redis',
      addressOf(settings),
      ['REDIS_URL', 'or REDIS_HOST', 'REDIS_PORT', 'REDIS_PASSWORD', 'REDIS_DB'],
      lastError ?? err,
    );
  }
  return redis;
}
