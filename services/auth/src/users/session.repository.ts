import { fromRedis as redis } from '@svc/common';
import type { OriginRequest, SessionStore, UserSessions } from '@svc/session-guard';

/**
 * Sessions in Redis, in the guard's key layout (SessionStore for one token,
 * UserSessions for all of a user's); a Redis failure is a StoreUnavailableError,
 * so an outage never reads as "logged out".
 */
export function sessionRepository(store: SessionStore, userSessions: UserSessions) {
  return {
    scheme: store.scheme,
    /** Resolves the session's lifetime in seconds; it keeps the login's address and User-Agent. */
    create: (token: string, username: string, ttlSeconds: number, login: OriginRequest) =>
      redis(store.create(token, username, ttlSeconds, login)),
    find: (token: string) => redis(store.find(token)),
    revoke: (token: string, username: string) => redis(store.revoke(token, username)),
    list: (username: string, token: string) => redis(userSessions.list(username, token)),
    end: (username: string, token: string, id: string) =>
      redis(userSessions.end(username, token, id)),
    endOthers: (username: string, token: string) => redis(userSessions.endOthers(username, token)),
    /** Every session of the user; in md5 the current token's, the one a user has. */
    endAll: (username: string, token: string) => redis(userSessions.endAll(username, token)),
  };
}

export type SessionRepository = ReturnType<typeof sessionRepository>;
