import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { StoreUnreachableError } from './errors.js';
import type { NodeRedisSettings, RedisAddress, RedisSettings } from './redis-settings.js';

/** A connection to one Redis (direct or found through Sentinel) or to a Redis Cluster. */
export type RedisClient = Redis | Cluster;

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
    // A command whose answer was lost with its connection may have been carried
    // out: sent again after a reconnect, it would run after its request was
    // answered. It fails instead, and the caller answers that the outcome is unknown.
    autoResendUnfulfilledCommands: false,
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

/**
 * ioredis can end a Sentinel client for good: a +switch-master notice that arrives
 * while the client is asking a sentinel for the primary aborts that attempt, and
 * nothing retries it (status "connecting" straight to "end"; every command then
 * fails "Connection is closed."). Here only disconnect() ends a client that way;
 * any other such end is retried like the client's own reconnects.
 */
function reconnectWhenAbandoned(redis: Redis): Redis {
  let closing = false;
  let last = '';
  const disconnect = redis.disconnect.bind(redis);
  redis.disconnect = (reconnect = false) => {
    if (!reconnect) closing = true;
    disconnect(reconnect);
  };
  for (const status of ['connecting', 'connect', 'ready', 'close', 'reconnecting']) {
    redis.on(status, () => {
      last = status;
    });
  }
  redis.on('end', () => {
    if (closing || last !== 'connecting') return;
    setTimeout(() => {
      if (!closing && redis.status === 'end') redis.connect().catch(() => {});
    }, retry(1));
  });
  return redis;
}

function createRedis(settings: NodeRedisSettings & { clusterNodes?: undefined }): Redis;
function createRedis(settings: RedisSettings): RedisClient;
function createRedis(settings: RedisSettings): RedisClient {
  if (settings.clusterNodes) return new Cluster(settings.clusterNodes, clusterOptions(settings));
  const options = baseOptions(settings);
  if (settings.sentinels) {
    const redis = new Redis({
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
    return reconnectWhenAbandoned(redis);
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
