import type { Cluster, Redis } from 'ioredis';
import { type CredentialStamp, stampArg, stampHolds } from './credentials.js';
import type { SessionKeys } from './session-keys.js';
import { newSessionId, type OriginRequest, originArgs } from './session-origin.js';
import { INDEX_ADD, OPEN } from './session-scripts.js';
import { SessionOutcomeUnknownError, SessionStoreError } from './store-error.js';
import { endLeastRecentlyUsed, endSessions, pruneIndex, type SessionTimes } from './user-index.js';

/** What a store writes a login's session with. */
export interface StorePlace {
  redis: Redis | Cluster;
  keys: SessionKeys;
  times: SessionTimes;
  maxPerUser: number;
}

/** A session a login opened: the id its owner's list shows, and its lifetime in seconds. */
export interface OpenedSession {
  id: string;
  expiresIn: number;
}

interface Login {
  token: string;
  username: string;
  ttlSeconds: number;
  request?: OriginRequest;
  stamp?: CredentialStamp;
}

/** SessionStore.create: the session, its index entry, the stamp's check; nothing of it left on failure. */
export async function openSession(place: StorePlace, login: Login): Promise<OpenedSession | null> {
  const { redis, keys, times } = place;
  const { token, username, stamp } = login;
  const lifetimeMs = Math.min(login.ttlSeconds * 1000, times.maxAgeMs);
  const tokenId = keys.tokenId(token);
  const now = Date.now();
  const id = newSessionId();
  const args = [username, lifetimeMs, id, now, now + times.maxAgeMs, stampArg(stamp)];
  // The session, then the index: an "end all" in between sees the hash in the index
  // or leaves it for the next one; the index never misses a live session for longer.
  try {
    const opened = await OPEN.run(redis, keys.ofTokenId(tokenId), [
      ...args,
      ...originArgs(login.request),
    ]);
    if (opened === 0) return null;
    if (keys.scheme === 'random') {
      await INDEX_ADD.run(redis, [keys.index(username)], [lifetimeMs, tokenId]);
    }
    // Indexed, then checked: a password change replaces the credentials value before
    // it reads the index, so either it ends this session or this check sees it.
    if (stamp && !(await stampHolds(redis, keys, username, stamp))) {
      await endSessions(redis, keys, username, [tokenId]);
      return null;
    }
  } catch (err) {
    await endSessions(redis, keys, username, [tokenId]).catch((cause: unknown) => {
      throw new SessionOutcomeUnknownError('a failed login may have left its session', { cause });
    });
    // Ended: whatever the failure was, the login left nothing.
    throw err instanceof SessionOutcomeUnknownError
      ? new SessionStoreError('the login failed', { cause: err })
      : err;
  }
  return { id, expiresIn: lifetimeMs / 1000 };
}

/** SessionStore.trim: the cap, or a prune of a sample of the index. */
export async function trimSessions(place: StorePlace, token: string, username: string) {
  const { redis, keys, times, maxPerUser } = place;
  if (keys.scheme !== 'random') return;
  const index = keys.index(username);
  if ((await redis.scard(index)) > maxPerUser) {
    const cap = { maxPerUser, ...times };
    await endLeastRecentlyUsed(redis, keys, username, keys.tokenId(token), cap);
  } else await pruneIndex(redis, keys, index);
}
