import type { ChainableCommander, Cluster, Redis } from 'ioredis';
import { sha256Hex, type TokenScheme } from './token.js';

/**
 * The only place that knows the Redis key layout and lifetimes of sessions: the
 * auth service writes sessions through it, and every guard reads them through it.
 *
 * random: `<prefix><sha256hex(token)>` → username, and `<prefix>user:<lowercased
 *         username>`, a set of the user's token hashes whose lifetime is kept at
 *         least that of its longest-lived session, so a password change can revoke
 *         them all and the set never outlives them for long.
 * md5:    `<prefix><token>` → username, the prefix empty unless configured, which
 *         is the old backend's layout.
 * None of these shapes can be a key of the judging queue (`bull:*`).
 *
 * Redis Cluster. These names carry no hash tag (they are shared with the old
 * backend and with guards already deployed), so a session key and its user's
 * index usually live in different hash slots, and no command here may touch two
 * keys at once: no MULTI, no Lua, no multi-key DEL across them. Every script and
 * transaction below touches one key; writes that span a session and its index
 * are single-key commands in an order that keeps the index a superset of the
 * user's live sessions (see create and revokeAll). Cluster-safe and single-node
 * behaviour are the same code.
 */
const DEFAULT_RANDOM_PREFIX = 'session:';
const USER_INDEX_INFIX = 'user:';

function defaultKeyPrefix(scheme: TokenScheme): string {
  return scheme === 'md5' ? '' : DEFAULT_RANDOM_PREFIX;
}

/** One Redis (direct or through Sentinel) or a Redis Cluster. */
type SessionRedis = Redis | Cluster;

export interface SessionStoreOptions {
  redis: SessionRedis;
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

// Adds to the index and makes it live at least as long as the session just written.
const INDEX_ADD = `
redis.call('SADD', KEYS[1], ARGV[2])
local ttl = redis.call('TTL', KEYS[1])
if ttl < tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return 1`;

// Session keys deleted per request in revokeAll; each DEL names one key (one slot).
const REVOKE_BATCH = 100;

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
  private readonly redis: SessionRedis;

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
    // The session first, then the index: a revokeAll that runs in between either
    // sees the hash in the index or leaves it there for the next one, so the index
    // never misses a live session for longer than this call.
    await this.redis.set(key, username, 'EX', ttlSeconds);
    const index = this.userIndexKey(username);
    await this.redis.eval(INDEX_ADD, 1, index, ttlSeconds, this.tokenId(token));
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
    await this.redis.del(key);
    await this.redis.srem(this.userIndexKey(username), this.tokenId(token));
  }

  /**
   * Ends every session of the user in `random`; in `md5` a user has one token
   * per password, the one given, so that is the one ended.
   *
   * Not atomic (see the file's head): it removes from the index only the hashes it
   * read and deleted, so a session written meanwhile stays indexed, and the set
   * itself disappears with its last member.
   */
  async revokeAll(username: string, currentToken: string): Promise<void> {
    const current = this.sessionKey(currentToken);
    if (this.scheme === 'md5') {
      await this.redis.del(current);
      return;
    }
    const index = this.userIndexKey(username);
    const hashes = await this.redis.smembers(index);
    await this.redis.del(current);
    for (let start = 0; start < hashes.length; start += REVOKE_BATCH) {
      const batch = hashes.slice(start, start + REVOKE_BATCH);
      await Promise.all(batch.map((hash) => this.redis.del(this.keyPrefix + hash)));
      await this.redis.srem(index, ...batch);
    }
  }

  private tokenId(token: string): string {
    return this.scheme === 'md5' ? token : sha256Hex(token);
  }
}
