import type { ChainableCommander, Cluster, Redis } from 'ioredis';
import { type CredentialStamp, readStamp, replaceCredentials } from './credentials.js';
import { maxAgeMs, perUserCap, SessionKeys } from './session-keys.js';
import { type OpenedSession, openSession, type StorePlace, trimSessions } from './session-login.js';
import { newSessionId, type OriginRequest, originArgs } from './session-origin.js';
import { CHECK, DESCRIBE, EXTEND } from './session-scripts.js';
import type { TokenScheme } from './token.js';
import { endSessions, type SessionTimes } from './user-index.js';

/** One Redis (direct or through Sentinel) or a Redis Cluster. */
type SessionRedis = Redis | Cluster;

export interface SessionStoreOptions {
  redis: SessionRedis;
  scheme?: TokenScheme;
  /** Defaults to `session:` for random and to none (the bare token) for md5. */
  keyPrefix?: string;
  /** SESSION_MAX_AGE: no session lives longer after its login. Default 604800 (7 days). */
  maxAgeSeconds?: number;
  /** SESSION_MAX_PER_USER: beyond it a login ends the least recently used. Default 100. */
  maxPerUser?: number;
  /**
   * The lifetime logins give (the auth service's TOKEN_TTL): a session whose
   * details were lost is then listed with the createdAt its key's time left
   * tells. Without it such a session's createdAt is when it was first seen.
   */
  ttlSeconds?: number;
}

/** The times a store reads sessions with: its max age, and the lifetime its logins give. */
export function sessionTimes(options: SessionStoreOptions): SessionTimes {
  const maxAge = maxAgeMs(options.maxAgeSeconds);
  const { ttlSeconds } = options;
  const known = Number.isInteger(ttlSeconds) && (ttlSeconds as number) > 0;
  return {
    maxAgeMs: maxAge,
    lifetimeMs: known ? Math.min((ttlSeconds as number) * 1000, maxAge) : 0,
  };
}

export interface LiveSession {
  username: string;
  /** Seconds left. */
  expiresIn: number;
}

/** How a guard uses a session it lets through, in milliseconds. */
interface SessionUse {
  /** lastSeenAt is written at most once in this time. */
  touchMs: number;
  /** Sliding: the lifetime each use renews to; 0 when use does not extend it. */
  renewMs: number;
}

type CheckReply =
  | [username: string, indexMs: number, metadataMissing: 0 | 1, lastSeenAt: number]
  | null;

// Sessions whose lastSeenAt a store remembers; past this it forgets them all at once.
const REMEMBERED_SESSIONS = 10_000;

async function run(pipeline: ChainableCommander): Promise<unknown[]> {
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

/** A session by its token: what logins, guards, status and logout do with it. */
export class SessionStore {
  readonly scheme: TokenScheme;
  private readonly redis: SessionRedis;
  private readonly keys: SessionKeys;
  private readonly times: SessionTimes;
  /** What a login writes with. */
  private readonly place: StorePlace;
  /** lastSeenAt of the sessions this store's checks saw, by token id. */
  private readonly lastSeen = new Map<string, number>();

  constructor(options: SessionStoreOptions) {
    const { redis, scheme = 'random', keyPrefix } = options;
    this.redis = redis;
    this.scheme = scheme;
    this.keys = new SessionKeys(scheme, keyPrefix);
    this.times = sessionTimes(options);
    const maxPerUser = perUserCap(options.maxPerUser);
    this.place = { redis, keys: this.keys, times: this.times, maxPerUser };
  }

  /** A login's first step, before it reads the password hash (credentials.ts). */
  stamp(username: string): Promise<CredentialStamp> {
    return readStamp(this.redis, this.keys, username);
  }

  /**
   * A password change's first step, after the new hash is stored and before it ends
   * the sessions: logins that read the old hash fail. md5: `oldToken` is retired.
   */
  changeCredentials(username: string, oldToken?: string): Promise<void> {
    return replaceCredentials(this.redis, this.keys, username, oldToken);
  }

  /**
   * Writes a new session (in md5, anew over the one of the same token) and returns
   * its id and lifetime in seconds: `ttlSeconds`, or the max age when shorter. With
   * the login's `stamp`: null, and no session, when the password changed since it.
   * A failure leaves no session behind, or, when even ending it fails, is a
   * SessionOutcomeUnknownError. Its answer given, the login calls `trim`.
   */
  create(
    token: string,
    username: string,
    ttlSeconds: number,
    request?: OriginRequest,
    stamp?: CredentialStamp,
  ): Promise<OpenedSession | null> {
    return openSession(this.place, { token, username, ttlSeconds, request, stamp });
  }

  /**
   * After a login has answered: ends the user's least recently used sessions
   * beyond the cap, or drops expired sessions' entries from a sample of the
   * index. Nothing depends on it: what a failure leaves, the next login does.
   */
  trim(token: string, username: string): Promise<void> {
    return trimSessions(this.place, token, username);
  }

  /**
   * The guard's check: the session's owner, or null when there is none. Notes the
   * use (lastSeenAt, and the sliding renewal) as `use` says. `request` describes a
   * session met here for the first time (one the old backend wrote).
   *
   * While the lastSeenAt this store last saw is younger than the touch interval,
   * no write can be due, so a fixed session is only read: the same single GET as a
   * guard without lastSeenAt. Nothing of the session's validity is remembered.
   */
  async check(token: string, use: SessionUse, request?: OriginRequest): Promise<string | null> {
    const tokenId = this.keys.tokenId(token);
    const pair = this.keys.ofTokenId(tokenId);
    const { touchMs, renewMs } = use;
    const now = Date.now();
    const seen = this.lastSeen.get(tokenId);
    if (renewMs === 0 && seen !== undefined && now - seen < touchMs) {
      const username = await this.redis.get(pair[0]);
      if (username === null) this.lastSeen.delete(tokenId);
      return username;
    }
    const reply = (await CHECK.run(this.redis, pair, [
      now,
      touchMs,
      renewMs,
      this.times.maxAgeMs,
    ])) as CheckReply;
    if (reply === null) {
      this.lastSeen.delete(tokenId);
      return null;
    }
    const [username, indexMs, metadataMissing, lastSeenAt] = reply;
    if (this.lastSeen.size >= REMEMBERED_SESSIONS) this.lastSeen.clear();
    this.lastSeen.set(tokenId, lastSeenAt);
    if (metadataMissing) {
      await DESCRIBE.run(this.redis, pair, [
        newSessionId(),
        Date.now(),
        this.times.maxAgeMs,
        this.times.lifetimeMs,
        ...originArgs(request),
      ]);
    }
    if (indexMs > 0 && this.scheme === 'random') {
      await EXTEND.run(this.redis, [this.keys.index(username)], [indexMs]);
    }
    return username;
  }

  async find(token: string): Promise<LiveSession | null> {
    const [session] = this.keys.ofToken(token);
    const [username, ttl] = await run(this.redis.multi().get(session).ttl(session));
    if (typeof username !== 'string' || typeof ttl !== 'number' || ttl === -2) return null;
    return { username, expiresIn: ttl };
  }

  /** Ends one session (a logout); see endSessions for what a failure means. */
  async revoke(token: string, username: string): Promise<void> {
    await endSessions(this.redis, this.keys, username, [this.keys.tokenId(token)]);
  }
}
