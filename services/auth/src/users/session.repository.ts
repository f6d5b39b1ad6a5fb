import { StoreUnavailableError } from '@svc/common';
import type { SessionStore } from '@svc/session-guard';

async function redis<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (err) {
    throw new StoreUnavailableError('redis', err);
  }
}

/**
 * Sessions in Redis, in the guard's key layout (SessionStore); a Redis failure
 * is a StoreUnavailableError, so an outage never reads as "logged out".
 */
export function sessionRepository(store: SessionStore) {
  return {
    scheme: store.scheme,
    create: (token: string, username: string, ttlSeconds: number) =>
      redis(store.create(token, username, ttlSeconds)),
    find: (token: string) => redis(store.find(token)),
    revoke: (token: string, username: string) => redis(store.revoke(token, username)),
    /** Every session of the user; in md5 the current token's, the one a user has. */
    revokeAll: (username: string, currentToken: string) =>
      redis(store.revokeAll(username, currentToken)),
  };
}

export type SessionRepository = ReturnType<typeof sessionRepository>;
