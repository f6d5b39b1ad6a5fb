import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { z } from 'zod';
import { StoreUnreachableError } from './app-error.js';
import { intVar, stringVar } from './config.js';

/** A connection to one Redis (direct or found through Sentinel) or to a Redis Cluster. */
export type RedisClient = Redis | Cluster;

interface RedisAddress {
  host: string;
  port: number;
}

const ADDRESS = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/** A comma list of host:port, e.g. `10.0.0.1:7000,10.0.0.2:7000`. */
function addressListVar() {
  return z
    .string()
    .transform((value, ctx) => {
      const addresses: RedisAddress[] = [];
      for (const entry of value.split(',').map((part) => part.trim())) {
        const match = ADDRESS.exec(entry);
        const port = Number(match?.[2]);
        if (!match || port < 1 || port > 65535) {
          ctx.addIssue({ code: 'custom', message: 'expected a comma list of host:port' });
          return z.NEVER;
        }
        addresses.push({ host: (match[1] as string).replace(/^\[|\]$/g, ''), port });
      }
      return addresses;
    })
    .optional();
}

/**
 * One Redis: REDIS_URL, or REDIS_HOST / REDIS_PORT / REDIS_PASSWORD / REDIS_DB.
 * A Redis Cluster: REDIS_CLUSTER_NODES (some or all masters; the rest is discovered).
 * A Sentinel-managed primary: REDIS_SENTINELS and REDIS_SENTINEL_NAME (REDIS_PASSWORD
 * and REDIS_DB apply to the primary).
 */
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
  REDIS_CLUSTER_NODES: addressListVar(),
  REDIS_SENTINELS: addressListVar(),
  REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'expected a Sentinel master name (letters, digits, . _ -)')
    .optional(),
};

type RedisEnv = z.infer<z.ZodObject<typeof redisEnv>>;

/** Settings that select one Redis, directly or through Sentinel: the client is a `Redis`. */
interface NodeRedisSettings {
  url?: string;
  host: string;
  port: number;
  password?: string;
  db: number;
  commandTimeoutMs?: number;
  /** With sentinelName: ask these sentinels for the primary instead of host and port. */
  sentinels?: RedisAddress[];
  sentinelName?: string;
}

interface RedisSettings extends NodeRedisSettings {
  /** A Redis Cluster: the client is a `Cluster`; url, host, port and db are ignored. */
  clusterNodes?: RedisAddress[];
}

/**
 * The settings the variables describe. Cluster and Sentinel exclude each other, and
 * Sentinel needs the master's name: both are configuration errors (ConfigError-like
 * messages naming the variables), reported by the schema's refinement below.
 */
export function redisSettingsFrom(env: RedisEnv): RedisSettings {
  return {
    url: env.REDIS_URL,
    host: env.REDIS_HOST,
    port: env.REDIS_PORT,
    password: env.REDIS_PASSWORD,
    db: env.REDIS_DB,
    commandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS,
    clusterNodes: env.REDIS_CLUSTER_NODES,
    sentinels: env.REDIS_SENTINELS,
    sentinelName: env.REDIS_SENTINEL_NAME,
  };
}

/**
 * Cross-variable rules of redisEnv, for a schema built with `...redisEnv`:
 * `z.object({ ...redisEnv }).superRefine(redisEnvRules)`.
 */
export function redisEnvRules(env: RedisEnv, ctx: z.RefinementCtx): void {
  if (env.REDIS_SENTINELS && !env.REDIS_SENTINEL_NAME) {
    ctx.addIssue({
      code: 'custom',
      path: ['REDIS_SENTINEL_NAME'],
      message: 'required with REDIS_SENTINELS: the name the sentinels monitor the primary under',
    });
  }
  if (env.REDIS_SENTINEL_NAME && !env.REDIS_SENTINELS) {
    ctx.addIssue({
      code: 'custom',
      path: ['REDIS_SENTINELS'],
      message: 'required with REDIS_SENTINEL_NAME: a comma list of sentinel host:port',
    });
  }
  if (env.REDIS_CLUSTER_NODES && env.REDIS_SENTINELS) {
    ctx.addIssue({
      code: 'custom',
      path: ['REDIS_CLUSTER_NODES'],
      message: 'set either REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both',
    });
  }
}

const retry = (attempt: number) => Math.min(attempt * 100, 1000);

/**
 * Commands fail at once while the connection is down (no offline queue), so a
 * request answers 503 quickly instead of waiting for a reconnect that may not come.
 */
function baseOptions(settings: NodeRedisSettings): RedisOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 3000,
    commandTimeout: settings.commandTimeoutMs ?? 2000,
    retryStrategy: retry,
    // Commands issued in the same tick share one write: under load, many
    // guarded requests cost Redis one round trip instead of one each.
    enableAutoPipelining: true,
  };
}

function clusterOptions(settings: RedisSettings): ClusterOptions {
  const { lazyConnect: _, retryStrategy: __, ...redisOptions } = baseOptions(settings);
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    clusterRetryStrategy: retry,
    // A MOVED or a failover is followed a few times, then the command fails (503).
    maxRedirections: 4,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    redisOptions: { ...redisOptions, password: settings.password },
  };
}

function createRedis(settings: NodeRedisSettings & { clusterNodes?: undefined }): Redis;
function createRedis(settings: RedisSettings): RedisClient;
function createRedis(settings: RedisSettings): RedisClient {
  if (settings.clusterNodes) return new Cluster(settings.clusterNodes, clusterOptions(settings));
  const options = baseOptions(settings);
  if (settings.sentinels) {
    return new Redis({
      ...options,
      sentinels: settings.sentinels,
      name: settings.sentinelName,
      password: settings.password,
      db: settings.db,
      sentinelRetryStrategy: retry,
      sentinelCommandTimeout: options.commandTimeout,
      // Follows a promotion as soon as a sentinel announces it.
      failoverDetector: true,
      // A demoted primary answers writes with READONLY: look the primary up again.
      reconnectOnError: (err) => err.message.startsWith('READONLY'),
    });
  }
  if (settings.url) return new Redis(settings.url, options);
  return new Redis({
    ...options,
    host: settings.host,
    port: settings.port,
    password: settings.password,
    db: settings.db,
  });
}

const list = (addresses: RedisAddress[]) =>
  addresses.map(({ host, port }) => `${host}:${port}`).join(',');

function describe(settings: RedisSettings): {
  store: string;
  address: string;
  variables: string[];
} {
  if (settings.clusterNodes) {
    return {
      store: 'Redis Cluster',
      address: list(settings.clusterNodes),
      variables: ['REDIS_CLUSTER_NODES', 'REDIS_PASSWORD'],
    };
  }
  if (settings.sentinels) {
    return {
      store: `Redis primary "${settings.sentinelName}" through Sentinel`,
      address: list(settings.sentinels),
      variables: ['REDIS_SENTINELS', 'REDIS_SENTINEL_NAME', 'REDIS_PASSWORD', 'REDIS_DB'],
    };
  }
  const variables = ['REDIS_URL', 'or REDIS_HOST', 'REDIS_PORT', 'REDIS_PASSWORD', 'REDIS_DB'];
  if (!settings.url)
    return { store: 'Redis', address: `${settings.host}:${settings.port}`, variables };
  const url = new URL(settings.url);
  return { store: 'Redis', address: `${url.hostname}:${url.port || 6379}`, variables };
}

const STARTUP_DEADLINE_MS = 3500;

/**
 * Why start-up failed, as briefly as possible: a socket error code when one is known,
 * else the client's own words ("None of startup nodes is available"), or the deadline
 * when the client was still retrying (sentinels that do not answer).
 */
function reasonOf(lastError: Error | undefined, err: unknown): unknown {
  if ((lastError as { code?: unknown } | undefined)?.code) return lastError;
  return err ?? lastError;
}

function deadline(ms: number): { promise: Promise<never>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * Connects before the service listens; a server that does not answer fails
 * start-up in a few seconds with one line naming the address and variables.
 * Later outages are logged (once per outage) and retried in the background.
 */
export async function connectRedis(
  settings: NodeRedisSettings & { clusterNodes?: undefined },
  logger?: Logger,
): Promise<Redis>;
export async function connectRedis(settings: RedisSettings, logger?: Logger): Promise<RedisClient>;
export async function connectRedis(settings: RedisSettings, logger?: Logger): Promise<RedisClient> {
  const redis = createRedis(settings);
  // Before the first `ready` a failure is start-up's to report, in its one line.
  let state: 'connecting' | 'up' | 'down' = 'connecting';
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => {
    lastError = err;
    if (state !== 'up') return;
    state = 'down';
    logger?.warn({ err: { message: err.message } }, 'redis connection lost');
  });
  redis.on('ready', () => {
    if (state === 'down') logger?.info('redis connection restored');
    state = 'up';
  });
  // Sentinel and cluster clients keep retrying inside connect(); the deadline ends that.
  const timeout = deadline(STARTUP_DEADLINE_MS);
  try {
    await Promise.race([redis.connect(), timeout.promise]);
  } catch (err) {
    redis.disconnect();
    const { store, address, variables } = describe(settings);
    throw new StoreUnreachableError(store, address, variables, reasonOf(lastError, err));
  } finally {
    timeout.cancel();
  }
  return redis;
}
