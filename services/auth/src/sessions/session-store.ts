import type { ChainableCommander, Redis } from 'ioredis';
import { sha256Hex, type TokenScheme } from './token.js';

/**
 * The only place that knows the Redis key layout and lifetimes.
 *
 * random: `<prefix><sha256hex(token)>` → username, and `<prefix>user:<lowercased
 *         username>`, a set of the user's token hashes whose lifetime is kept at
 *         least that of its longest-lived session, so a password change can revoke
 *         them all and the set never outlives them for long.
 * md5:    `<prefix><token>` → username, the prefix empty unless configured, which
 *         is the old backend's layout.
 * Login failures: `auth:login-failures:<encoded lowercased username>:<address>`.
 * None of these shapes can be a key of the judging queue (`bull:*`).
 */
export const DEFAULT_RANDOM_PREFIX = 'session:';
const USER_INDEX_INFIX = 'user:';
const LOGIN_FAILURES_PREFIX = 'auth:login-failures:';

export function defaultKeyPrefix(scheme: TokenScheme): string {
  return scheme === 'md5' ? '' : DEFAULT_RANDOM_PREFIX;
}

// Half of a surrogate pair, alone. JSON may carry one, and encodeURIComponent throws on it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The username is URI-encoded, so the first `:` after it starts the address. A
 * lone surrogate counts as U+FFFD, as it does in MySQL and in a password hash.
 */
export function loginFailuresKey(username: string, address: string): string {
  const name = username.toLowerCase().replace(LONE_SURROGATE, '\ufffd');
  return `${LOGIN_FAILURES_PREFIX}${encodeURIComponent(name)}:${address}`;
}

export interface SessionStoreOptions {
  redis: Redis;
  scheme?: TokenScheme;
  /** Defaults to `session:` for random and to none (the bare token) for md5. */
  keyPrefix?: string;
}

export interface LiveSession {
  username: string;
  /** Seconds left. */
  expiresIn: number;
}

// Never shortens a lifetime, and leaves a missing key missing.
const EXTEND_TO = `
local ttl = redis.call('TTL', KEYS[1])
if ttl >= 0 and ttl < tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return ttl`;

const CREATE_INDEXED = `
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
local ttl = redis.call('TTL', KEYS[2])
if ttl < tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[2], ARGV[2]) end
return 1`;

// Atomic, so a session written meanwhile is either revoked or still indexed.
const REVOKE_INDEXED = `
local hashes = redis.call('SMEMBERS', KEYS[1])
for _, hash in ipairs(hashes) do redis.call('DEL', ARGV[1] .. hash) end
redis.call('DEL', KEYS[1], KEYS[2])
return #hashes`;

async function run(pipeline: ChainableCommander): Promise<unknown[]> {
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

export class SessionStore {
  readonly scheme: TokenScheme;
  readonly keyPrefix: string;
  private readonly redis: Redis;

  constructor({ redis, scheme = 'random', keyPrefix }: SessionStoreOptions) {
    this.redis = redis;
    this.scheme = scheme;
    this.keyPrefix = keyPrefix ?? defaultKeyPrefix(scheme);
  }

  /** Redis never sees a random token itself, only its SHA-256. */
  sessionKey(token: string): string {
    return this.keyPrefix + this.tokenId(token);
  }

  userIndexKey(username: string): string {
    return `${this.keyPrefix}${USER_INDEX_INFIX}${username.toLowerCase()}`;
  }

  /** Writes the session with its full lifetime, whether or not it existed. */
  async create(token: string, username: string, ttlSeconds: number): Promise<void> {
    const key = this.sessionKey(token);
    if (this.scheme === 'md5') {
      await this.redis.set(key, username, 'EX', ttlSeconds);
      return;
    }
    const index = this.userIndexKey(username);
    await this.redis.eval(CREATE_INDEXED, 2, key, index, username, ttlSeconds, this.tokenId(token));
  }

  /** The session's owner, or null when there is no live session. */
  async lookup(token: string): Promise<string | null> {
    return this.redis.get(this.sessionKey(token));
  }

  /** As lookup, and a live session gets its full lifetime again (sliding expiry). */
  async lookupAndRenew(token: string, ttlSeconds: number): Promise<string | null> {
    const key = this.sessionKey(token);
    const [username] = await run(this.redis.multi().get(key).expire(key, ttlSeconds));
    if (typeof username !== 'string') return null;
    if (this.scheme === 'random') {
      await this.redis.eval(EXTEND_TO, 1, this.userIndexKey(username), ttlSeconds);
    }
    return username;
  }

  async find(token: string): Promise<LiveSession | null> {
    const key = this.sessionKey(token);
    const [username, ttl] = await run(this.redis.multi().get(key).ttl(key));
    if (typeof username !== 'string' || typeof ttl !== 'number' || ttl === -2) return null;
    return { username, expiresIn: ttl };
  }

  /** Ends one session. */
  async revoke(token: string, username: string): Promise<void> {
    const key = this.sessionKey(token);
    if (this.scheme === 'md5') {
      await this.redis.del(key);
      return;
    }
    await run(this.redis.multi().del(key).srem(this.userIndexKey(username), this.tokenId(token)));
  }

  /**
   * Ends every session of the user in `random`; in `md5` a user has one token
   * per password, the one given, so that is the one ended.
   */
  async revokeAll(username: string, currentToken: string): Promise<void> {
    const current = this.sessionKey(currentToken);
    if (this.scheme === 'md5') {
      await this.redis.del(current);
      return;
    }
    await this.redis.eval(REVOKE_INDEXED, 2, this.userIndexKey(username), current, this.keyPrefix);
  }

  private tokenId(token: string): string {
    return this.scheme === 'md5' ? token : sha256Hex(token);
  }
}
