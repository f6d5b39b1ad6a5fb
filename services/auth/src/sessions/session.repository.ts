import {
  type CredentialStamp,
  createUserSessions,
  type OriginRequest,
  SessionStore,
  type SessionStoreOptions,
} from '@svc/session-guard';
import { fromRedis } from '../redis-failure.js';

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
    /** Before a login reads the password hash: what `create` checks the password against. */
    stamp: (username: string) => fromRedis(store.stamp(username)),
    /**
     * Resolves the session's id and lifetime in seconds (it keeps the login's
     * address and User-Agent), or null when the password changed since the login's stamp.
     */
    create: (
      token: string,
      username: string,
      ttlSeconds: number,
      login: OriginRequest,
      stamp: CredentialStamp,
    ) => fromRedis(store.create(token, username, ttlSeconds, login, stamp)),
    /** Once a login has answered: the cap, and the index's expired entries (see SessionStore.trim). */
    trim: (token: string, username: string) => fromRedis(store.trim(token, username)),
    find: (token: string) => fromRedis(store.find(token)),
    revoke: (token: string, username: string) => fromRedis(store.revoke(token, username)),
    list: (username: string, token: string) => fromRedis(userSessions.list(username, token)),
    end: (username: string, token: string, id: string) =>
      fromRedis(userSessions.end(username, token, id)),
    endOthers: (username: string, token: string) =>
      fromRedis(userSessions.endOthers(username, token)),
    /**
     * After a password change: fails every login that read the old hash (in md5
     * also retires `oldToken`, the old password's), then ends every session of
     * the user, the current one last (in md5 the current token's, the one a
     * user has).
     */
    endAllForNewPassword: async (username: string, token: string, oldToken?: string) => {
      await fromRedis(store.changeCredentials(username, oldToken));
      return fromRedis(userSessions.endAll(username, token));
    },
    endAll: (username: string, token: string) => fromRedis(userSessions.endAll(username, token)),
  };
}

export type SessionRepository = ReturnType<typeof sessionRepository>;
