import { fromRedis } from '@svc/common';
import {
  createUserSessions,
  type OriginRequest,
  SessionStore,
  type SessionStoreOptions,
} from '@svc/session-guard';

/**
 * Sessions in Redis, in the guard package's key layout (its SessionStore for
 * one token, its UserSessions for all of a user's); a Redis failure is a
 * StoreUnavailableError, so an outage never reads as "logged out".
 */
export function sessionRepository(layout: SessionStoreOptions) {
  const store = new SessionStore(layout);
  const userSessions = createUserSessions(layout);
  return {
    scheme: store.scheme,
    /** Resolves the session's lifetime in seconds; it keeps the login's address and User-Agent. */
    create: (token: string, username: string, ttlSeconds: number, login: OriginRequest) =>
      fromRedis(store.create(token, username, ttlSeconds, login)),
    find: (token: string) => fromRedis(store.find(token)),
    revoke: (token: string, username: string) => fromRedis(store.revoke(token, username)),
    list: (username: string, token: string) => fromRedis(userSessions.list(username, token)),
    end: (username: string, token: string, id: string) =>
      fromRedis(userSessions.end(username, token, id)),
    endOthers: (username: string, token: string) =>
      fromRedis(userSessions.endOthers(username, token)),
    /** Every session of the user; in md5 the current token's, the one a user has. */
    endAll: (username: string, token: string) => fromRedis(userSessions.endAll(username, token)),
  };
}

export type SessionRepository = ReturnType<typeof sessionRepository>;
