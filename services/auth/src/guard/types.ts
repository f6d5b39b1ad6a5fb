import type { Request } from 'express';
import type { Cluster, Redis } from 'ioredis';
import type { TokenScheme } from '../sessions/token.js';

export type { TokenScheme };

/** The owner of the session a request carries, as the guard sets it on `req.user`. */
export interface AuthUser {
  username: string;
}

declare global {
  namespace Express {
    interface Request {
      /** The token of a request the guard let through. */
      token?: string;
      /** The owner of that token's session. */
      user?: AuthUser;
    }
  }
}

export interface GuardOptions {
  /**
   * The caller's own connection to the Redis that holds the sessions: a `Redis`
   * (direct or through Sentinel) or a `Cluster`.
   */
  redis: Redis | Cluster;
  /** Must match the auth service's TOKEN_SCHEME. Default `random`. */
  scheme?: TokenScheme;
  /** Must match the auth service's SESSION_KEY_PREFIX when that is set. */
  keyPrefix?: string;
  /** Renew the session's lifetime on every use (TOKEN_SLIDING). Default false. */
  sliding?: boolean;
  /** The lifetime a sliding renewal gives (TOKEN_TTL); required when sliding. */
  ttlSeconds?: number;
  /**
   * Told when Redis fails (the request gets 503). Default: `req.log.error`
   * when the app has a request logger (`@svc/common`), else nothing.
   */
  onStoreError?: (err: unknown, req: Request) => void;
}
