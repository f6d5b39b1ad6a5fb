import { isIP } from 'node:net';
import {
  boolVar,
  httpEnv,
  intVar,
  loadConfig,
  mysqlEnv,
  redisEnv,
  redisEnvRules,
} from '@svc/common';
import { LONGEST_MAX_AGE_SECONDS, type TokenScheme } from '@svc/session-guard';
import { z } from 'zod';

/** `trust proxy` as Express takes it: false, true, a hop count, or addresses and subnets. */
export type TrustProxy = boolean | number | string[];

const NAMED_SUBNETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(entry: string): boolean {
  if (NAMED_SUBNETS.has(entry)) return true;
  const [address = '', range, ...rest] = entry.split('/');
  if (rest.length > 0 || isIP(address) === 0) return false;
  if (range === undefined) return true;
  const bits = isIP(address) === 4 ? 32 : 128;
  return (/^\d+$/.test(range) && Number(range) <= bits) || isIP(range) === 4;
}

function parseTrustProxy(value: string): TrustProxy | undefined {
  if (value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  return entries.every(isProxyAddress) ? entries : undefined;
}

const trustProxyVar = z
  .string()
  .transform((value, ctx) => {
    const parsed = parseTrustProxy(value.trim());
    if (parsed !== undefined) return parsed;
    ctx.addIssue({
      code: 'custom',
      message: 'expected true, false, a hop count, or a comma list of addresses or subnets',
    });
    return z.NEVER;
  })
  .default(false);

export const configSchema = z
  .object({
    ...httpEnv(3000),
    ...mysqlEnv('judge'),
    ...redisEnv,
    TOKEN_TTL: intVar(3600, 1),
    TOKEN_SCHEME: z.enum(['random', 'md5'], { error: 'expected random or md5' }).default('random'),
    TOKEN_SLIDING: boolVar(false),
    SESSION_KEY_PREFIX: z
      .string()
      .max(64, 'expected at most 64 characters')
      .refine(
        (prefix) => !prefix.startsWith('bull:'),
        'must not be in the job queue key space bull:',
      )
      .refine((prefix) => !/[{}]/.test(prefix), 'must not contain { or } (Redis Cluster hash tags)')
      .optional(),
    SESSION_TOUCH_SECONDS: intVar(60, 1),
    SESSION_MAX_AGE: intVar(604_800, 1, LONGEST_MAX_AGE_SECONDS),
    SESSION_MAX_PER_USER: intVar(100, 1, 10_000),
    PASSWORD_REHASH: boolVar(true),
    LOGIN_MAX_FAILURES: intVar(5, 1, 10_000),
    ACCOUNT_MAX_FAILURES: intVar(20, 1, 100_000),
    LOGIN_WINDOW_SECONDS: intVar(900, 1),
    LOGIN_LOCK_SECONDS: intVar(900, 1),
    TWO_FACTOR_CHALLENGE_SECONDS: intVar(300, 1, 3600),
    TRUST_PROXY: trustProxyVar,
  })
  .superRefine(redisEnvRules);

type AuthConfig = z.infer<typeof configSchema>;

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  return loadConfig(configSchema, env);
}

/** What the routes need to know, apart from the stores. */
export interface AuthSettings {
  tokenScheme: TokenScheme;
  tokenTtl: number;
  sliding: boolean;
  /** A session's lastSeenAt is written at most once in this time. */
  touchSeconds: number;
  /** No session lives longer after its login, however it is used. */
  maxAgeSeconds: number;
  /** A login beyond this many live sessions of its user ends the least recently used. */
  maxPerUser: number;
  /** Undefined: the scheme's default layout. */
  keyPrefix?: string;
  passwordRehash: boolean;
  loginMaxFailures: number;
  /** A username's failures across every address (logins without a device token). */
  accountMaxFailures: number;
  loginWindowSeconds: number;
  loginLockSeconds: number;
  /** How long a right password's challenge waits for its second step. */
  twoFactorChallengeSeconds: number;
  trustProxy: TrustProxy;
  /** Bound on each MySQL statement. */
  queryTimeoutMs: number;
}

export const defaultSettings: AuthSettings = authSettingsFrom(configSchema.parse({}));

export function authSettingsFrom(config: AuthConfig): AuthSettings {
  return {
    tokenScheme: config.TOKEN_SCHEME,
    tokenTtl: config.TOKEN_TTL,
    sliding: config.TOKEN_SLIDING,
    touchSeconds: config.SESSION_TOUCH_SECONDS,
    maxAgeSeconds: config.SESSION_MAX_AGE,
    maxPerUser: config.SESSION_MAX_PER_USER,
    keyPrefix: config.SESSION_KEY_PREFIX,
    passwordRehash: config.PASSWORD_REHASH,
    loginMaxFailures: config.LOGIN_MAX_FAILURES,
    accountMaxFailures: config.ACCOUNT_MAX_FAILURES,
    loginWindowSeconds: config.LOGIN_WINDOW_SECONDS,
    loginLockSeconds: config.LOGIN_LOCK_SECONDS,
    twoFactorChallengeSeconds: config.TWO_FACTOR_CHALLENGE_SECONDS,
    trustProxy: config.TRUST_PROXY,
    queryTimeoutMs: config.MYSQL_QUERY_TIMEOUT_MS,
  };
}
