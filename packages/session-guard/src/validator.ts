import type { Cluster, Redis } from 'ioredis';
import { SessionStore } from './session-store.js';
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
}

/** The owner of a live session. */
export interface AuthUser {
  username: string;
}

/** Redis failed: the token's fate is unknown, so the answer is 503, never 401. */
export class SessionStoreError extends Error {
  override name = 'SessionStoreError';
}

export interface SessionValidator {
  /** The session's owner, or null when the token names no live session. */
  validate(token: string): Promise<AuthUser | null>;
}

export function createSessionValidator(options: SessionOptions): SessionValidator {
  const { redis, scheme = 'random', keyPrefix, sliding = false, ttlSeconds } = options;
  if (sliding && !(Number.isInteger(ttlSeconds) && (ttlSeconds as number) > 0)) {
    throw new TypeError('session-guard: sliding sessions need ttlSeconds, a positive integer');
  }
  const store = new SessionStore({ redis, scheme, keyPrefix });
  return {
    async validate(token) {
      // A token no login could have issued never reaches Redis (in md5 the key is the bare token).
      if (!isWellFormedToken(scheme, token)) return null;
      let username: string | null;
      try {
        username = sliding
          ? await store.lookupAndRenew(token, ttlSeconds as number)
          : await store.lookup(token);
      } catch (err) {
        throw new SessionStoreError('the session store (Redis) failed', { cause: err });
      }
      return username === null ? null : { username };
    },
  };
}
