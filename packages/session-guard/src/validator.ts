import type { Cluster, Redis } from 'ioredis';
import { DEFAULT_TOUCH_SECONDS, maxAgeMs } from './session-keys.js';
import type { OriginRequest } from './session-origin.js';
import { SessionStore } from './session-store.js';
import { fromStore } from './store-error.js';
import { isWellFormedToken, type TokenScheme } from './token.js';

export interface SessionOptions {
  /**
   * Your own connection to the Redis that holds the sessions: a `Redis`
   * (direct or through Sentinel) or a `Cluster`.
   */
  redis: Redis | Cluster;
  /** The auth service's TOKEN_SCHEME. Default `random`. */
  scheme?: TokenScheme;
  /** The auth service's SESSION_KEY_PREFIX, when it sets one. */
  keyPrefix?: string;
  /** Renew a session's lifetime on every use (the auth service's TOKEN_SLIDING). Default false. */
  sliding?: boolean;
  /** The lifetime a renewal gives (TOKEN_TTL); required when sliding. */
  ttlSeconds?: number;
  /** Write a session's lastSeenAt at most once in this time (SESSION_TOUCH_SECONDS). Default 60. */
  touchSeconds?: number;
  /** No renewal takes a session past this age (SESSION_MAX_AGE). Default 604800 (7 days). */
  maxAgeSeconds?: number;
}

/** The owner of a live session. */
export interface AuthUser {
  username: string;
}

export interface SessionValidator {
  /**
   * The session's owner, or null when the token names no live session. `request`
   * (its address and User-Agent) describes a session seen here for the first time.
   */
  validate(token: string, request?: OriginRequest): Promise<AuthUser | null>;
}

export function createSessionValidator(options: SessionOptions): SessionValidator {
  const { scheme = 'random', sliding = false, ttlSeconds } = options;
  const { touchSeconds = DEFAULT_TOUCH_SECONDS } = options;
  if (sliding && !(Number.isInteger(ttlSeconds) && (ttlSeconds as number) > 0)) {
    throw new TypeError('session-guard: sliding sessions need ttlSeconds, a positive integer');
  }
  if (!(Number.isInteger(touchSeconds) && touchSeconds > 0)) {
    throw new TypeError('session-guard: touchSeconds must be a positive integer');
  }
  const store = new SessionStore(options);
  // A renewal never reaches past the max age, so it never asks for more.
  const renewMs = sliding
    ? Math.min((ttlSeconds as number) * 1000, maxAgeMs(options.maxAgeSeconds))
    : 0;
  const use = { touchMs: touchSeconds * 1000, renewMs };
  return {
    async validate(token, request) {
      // A token no login could have issued never reaches Redis (in md5 the key is the bare token).
      if (!isWellFormedToken(scheme, token)) return null;
      const username = await fromStore(store.check(token, use, request));
      return username === null ? null : { username };
    },
  };
}
