import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ChainableCommander, Cluster, Redis } from 'ioredis';
import { CREDENTIALS_HOLD_MS, maxAgeMs, SessionKeys } from './session-keys.js';
import { newSessionId, type OriginRequest, originArgs } from './session-origin.js';
import { CHECK, DESCRIBE, EXTEND, INDEX_ADD, OPEN, RETIRE } from './session-scripts.js';
import type { TokenScheme } from './token.js';
import { describeSessions, endSessions } from './user-index.js';

/** One Redis (direct or through Sentinel) or a Redis Cluster. */
type SessionRedis = Redis | Cluster;

export interface SessionStoreOptions {
  redis: SessionRedis;
  scheme?: TokenScheme;
  /** Defaults to `session:` for random and to none (the bare token) for md5. */
  keyPrefix?: string;
  /** SESSION_MAX_AGE: no session lives longer after its login. Default 604800 (7 days). */
  maxAgeSeconds?: number;
  /**
   * SESSION_MAX_PER_USER: a login beyond it ends the user's least recently used
   * sessions (random scheme). Default 100.
   */
  maxPerUser?: number;
}

/** What a login read of its user's credentials before it read the password hash (`stamp`). */
export interface CredentialStamp {
  readonly value: string | null;
  /** performance.now() before the read. */
  readonly readAt: number;
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
/** Index entries a login looks at, to drop those of expired sessions. */
const PRUNE_SAMPLE = 16;
const DEFAULT_MAX_PER_USER = 100;

/** A stamp as OPEN and RETIRE compare it: `-` for a write that checks none. */
const stampArg = (stamp?: CredentialStamp) => (stamp ? `v:${stamp.value ?? ''}` : '-');

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
  private readonly maxAgeMs: number;
  private readonly maxPerUser: number;
  /** lastSeenAt of the sessions this store's checks saw, by token id. */
  private readonly lastSeen = new Map<string, number>();

  constructor(options: SessionStoreOptions) {
    const { redis, scheme = 'random', keyPrefix, maxAgeSeconds } = options;
    const { maxPerUser = DEFAULT_MAX_PER_USER } = options;
    if (!(Number.isInteger(maxPerUser) && maxPerUser > 0)) {
      throw new TypeError('session-guard: maxPerUser must be a positive integer');
    }
    this.redis = redis;
    this.scheme = scheme;
    this.keys = new SessionKeys(scheme, keyPrefix);
    this.maxAgeMs = maxAgeMs(maxAgeSeconds);
    this.maxPerUser = maxPerUser;
  }

  /**
   * A login's first step, before it reads the user's password hash: what `create`
   * needs to tell whether the password changed while the login ran.
   */
  async stamp(username: string): Promise<CredentialStamp> {
    const readAt = performance.now();
    return { value: await this.redis.get(this.keys.credentials(username)), readAt };
  }

  /**
   * A password change's first step, after the new hash is stored and before it
   * ends the user's sessions: every login that read the old hash and has not yet
   * indexed its session now fails (`create` resolves null). In md5, `oldToken`
   * (the old password's) ends here and no such login can write it again.
   */
  async changeCredentials(username: string, oldToken?: string): Promise<void> {
    const value = randomBytes(16).toString('hex');
    await this.redis.set(this.keys.credentials(username), value, 'PX', CREDENTIALS_HOLD_MS);
    if (this.scheme === 'md5' && oldToken !== undefined) {
      const retired = [stampArg({ value, readAt: 0 }), CREDENTIALS_HOLD_MS];
      await RETIRE.run(this.redis, this.keys.ofToken(oldToken), retired);
    }
  }

  /**
   * Writes a new session (in md5, anew over the one of the same token) and
   * returns its lifetime in seconds: `ttlSeconds`, or the max age when shorter.
   * `request` is the login's: its address and User-Agent are kept. With the
   * login's `stamp`, resolves null (and leaves no session) when the user's
   * password changed since the stamp was taken, or the login took longer than
   * CREDENTIALS_HOLD_MS. A login beyond the per-user cap ends the user's least
   * recently used sessions.
   */
  async create(
    token: string,
    username: string,
    ttlSeconds: number,
    request?: OriginRequest,
    stamp?: CredentialStamp,
  ): Promise<number | null> {
    const lifetimeMs = Math.min(ttlSeconds * 1000, this.maxAgeMs);
    const tokenId = this.keys.tokenId(token);
    const now = Date.now();
    const endsAt = now + this.maxAgeMs;
    const args = [username, lifetimeMs, newSessionId(), now, endsAt, stampArg(stamp)];
    // The session first, then the index: an "end all" that runs in between either
    // sees the hash in the index or leaves it there for the next one, so the index
    // never misses a live session for longer than this call.
    const opened = await OPEN.run(this.redis, this.keys.ofTokenId(tokenId), [
      ...args,
      ...originArgs(request),
    ]);
    if (opened === 0) return null;
    const index = this.keys.index(username);
    const indexed =
      this.scheme === 'random'
        ? ((await INDEX_ADD.run(this.redis, [index], [lifetimeMs, tokenId])) as number)
        : 0;
    // Indexed, then checked: a password change replaces the credentials value before
    // it reads the index, so either it ends this session or this check sees it.
    if (stamp && !(await this.stampHolds(username, stamp))) {
      await endSessions(this.redis, this.keys, username, [tokenId]);
      return null;
    }
    if (indexed > this.maxPerUser) await this.endLeastRecentlyUsed(username, tokenId);
    else if (this.scheme === 'random') await this.pruneIndex(index);
    return lifetimeMs / 1000;
  }

  /**
   * Whether the password is unchanged since the stamp. A change writes a new
   * value that lives CREDENTIALS_HOLD_MS; within that time since the stamp, a
   * change would still be there, so none found means none happened.
   */
  private async stampHolds(username: string, stamp: CredentialStamp): Promise<boolean> {
    const value = await this.redis.get(this.keys.credentials(username));
    if (performance.now() - stamp.readAt >= CREDENTIALS_HOLD_MS) return false;
    return value === null || value === stamp.value;
  }

  /**
   * Brings the user down to the cap: drops the index entries of expired sessions,
   * then ends the live ones with the oldest lastSeenAt (then createdAt), never the
   * one just written. It reads every entry, at most a few beyond the cap.
   */
  private async endLeastRecentlyUsed(username: string, newTokenId: string): Promise<void> {
    const index = this.keys.index(username);
    const tokenIds = await this.redis.smembers(index);
    const { live, gone } = await describeSessions(this.redis, this.keys, tokenIds, this.maxAgeMs);
    if (gone.length > 0) await this.redis.srem(index, ...gone);
    const excess = live.length - this.maxPerUser;
    if (excess <= 0) return;
    const oldest = live
      .filter((session) => session.tokenId !== newTokenId)
      .sort((a, b) => a.lastSeenAt - b.lastSeenAt || a.createdAt - b.createdAt)
      .slice(0, excess);
    await endSessions(
      this.redis,
      this.keys,
      username,
      oldest.map((session) => session.tokenId),
    );
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
      this.maxAgeMs,
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
        this.maxAgeMs,
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

  /** Ends one session (a logout). */
  async revoke(token: string, username: string): Promise<void> {
    await endSessions(this.redis, this.keys, username, [this.keys.tokenId(token)]);
  }

  /**
   * Drops from the index hashes whose sessions have expired, looking at a random
   * handful of them: a login costs the same however many sessions its user holds
   * (reading them all made each login of a user with thousands of sessions send
   * thousands of commands). Each login adds one hash and looks at up to
   * PRUNE_SAMPLE, so expired ones cannot pile up; a listing reads them all anyway.
   */
  private async pruneIndex(index: string): Promise<void> {
    const tokenIds = await this.redis.srandmember(index, PRUNE_SAMPLE);
    const live = await Promise.all(
      tokenIds.map((tokenId) => this.redis.exists(this.keys.ofTokenId(tokenId)[0])),
    );
    const expired = tokenIds.filter((_, i) => live[i] === 0);
    if (expired.length > 0) await this.redis.srem(index, ...expired);
  }
}
