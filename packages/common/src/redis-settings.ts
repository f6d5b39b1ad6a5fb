import { z } from 'zod';
import { intVar, stringVar } from './config.js';

export interface RedisAddress {
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
export interface NodeRedisSettings {
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

export interface RedisSettings extends NodeRedisSettings {
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
