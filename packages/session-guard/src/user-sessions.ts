import { SessionKeys } from './session-keys.js';
import { type SessionStoreOptions, sessionTimes } from './session-store.js';
import { fromStore } from './store-error.js';
import { describeSessions, endSessions } from './user-index.js';

/** A live session as its owner sees it; times are ISO 8601 UTC. */
export interface SessionInfo {
  /** Stable for the session's life; tells nothing of the token. */
  id: string;
  /** The session of the token the request carries. */
  current: boolean;
  createdAt: string;
  /** The last guarded use, to within the guards' touch interval. */
  lastSeenAt: string;
  expiresAt: string;
  /** The login's, at most 256 characters; null when it sent none. */
  userAgent: string | null;
  /** The login's client address; `unknown` for a session whose login this package never saw. */
  ip: string;
}

/**
 * A user's sessions, for routes that let the user see and end them. Each takes
 * the guarded request's `req.user.username` and `req.token`, and rejects with a
 * SessionStoreError when Redis fails.
 */
export interface UserSessions {
  /** The live sessions, newest `createdAt` first. */
  list(username: string, currentToken: string): Promise<SessionInfo[]>;
  /** Ends the session with this id if it is one of the user's live ones; false otherwise. */
  end(username: string, currentToken: string, id: string): Promise<boolean>;
  /** Ends every session but the current one; resolves how many live ones it ended. */
  endOthers(username: string, currentToken: string): Promise<number>;
  /**
   * Ends every session, the current one included and last, so that a request
   * whose answer was lost can be sent again with it; resolves how many live
   * ones it ended.
   */
  endAll(username: string, currentToken: string): Promise<number>;
}

const SESSION_ID = /^[A-Za-z0-9_-]{16,64}$/;

interface Found {
  tokenId: string;
  info: SessionInfo;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function createUserSessions(options: SessionStoreOptions): UserSessions {
  const { redis, scheme = 'random', keyPrefix } = options;
  const keys = new SessionKeys(scheme, keyPrefix);
  const times = sessionTimes(options);

  /** The user's indexed token hashes and the current one, which is theirs whatever the index says. */
  async function tokenIdsOf(username: string, currentId: string): Promise<string[]> {
    if (scheme === 'md5') return [currentId];
    const indexed = await redis.smembers(keys.index(username));
    return indexed.includes(currentId) ? indexed : [...indexed, currentId];
  }

  /**
   * The live sessions, and the index rid of the expired ones. The index holds
   * only its user's logins, and the current session is the guard's, so no
   * session key is read for its owner: reading leaves its last use as it was.
   */
  async function live(username: string, currentToken: string): Promise<Found[]> {
    const currentId = keys.tokenId(currentToken);
    const now = Date.now();
    const described = await describeSessions(
      redis,
      keys,
      await tokenIdsOf(username, currentId),
      times,
    );
    if (scheme === 'random' && described.gone.length > 0) {
      await redis.srem(keys.index(username), ...described.gone);
    }
    return described.live.map(({ tokenId, leftMs, id, createdAt, lastSeenAt, ip, userAgent }) => ({
      tokenId,
      info: {
        id,
        current: tokenId === currentId,
        createdAt: iso(createdAt),
        lastSeenAt: iso(lastSeenAt),
        expiresAt: iso(now + leftMs),
        userAgent,
        ip,
      },
    }));
  }

  const endSessionsOf = (username: string, tokenIds: string[], last?: string) =>
    endSessions(redis, keys, username, tokenIds, last);

  async function list(username: string, currentToken: string): Promise<SessionInfo[]> {
    return (await live(username, currentToken))
      .map(({ info }) => info)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  }

  async function end(username: string, currentToken: string, id: string): Promise<boolean> {
    if (!SESSION_ID.test(id)) return false;
    const target = (await live(username, currentToken)).find(({ info }) => info.id === id);
    return target !== undefined && (await endSessionsOf(username, [target.tokenId])) === 1;
  }

  async function endOthers(username: string, currentToken: string): Promise<number> {
    const currentId = keys.tokenId(currentToken);
    const others = (await tokenIdsOf(username, currentId)).filter((id) => id !== currentId);
    return endSessionsOf(username, others);
  }

  async function endAll(username: string, currentToken: string): Promise<number> {
    const currentId = keys.tokenId(currentToken);
    return endSessionsOf(username, await tokenIdsOf(username, currentId), currentId);
  }

  return {
    list: (username, currentToken) => fromStore(list(username, currentToken)),
    end: (username, currentToken, id) => fromStore(end(username, currentToken, id)),
    endOthers: (username, currentToken) => fromStore(endOthers(username, currentToken)),
    endAll: (username, currentToken) => fromStore(endAll(username, currentToken)),
  };
}
