import { maxAgeMs, SessionKeys } from './session-keys.js';
import { newSessionId, originArgs } from './session-origin.js';
import { DESCRIBE, END } from './session-scripts.js';
import type { SessionStoreOptions } from './session-store.js';
import { fromStore } from './store-error.js';

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
  /** Ends every session, the current one included; resolves how many live ones it ended. */
  endAll(username: string, currentToken: string): Promise<number>;
}

const SESSION_ID = /^[A-Za-z0-9_-]{16,64}$/;
// Sessions ended per round of requests; each END names one session's slot.
const END_BATCH = 100;

type Described = [string, number, string, string, string, string, string | null] | null;

interface Found {
  tokenId: string;
  info: SessionInfo;
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

export function createUserSessions(options: SessionStoreOptions): UserSessions {
  const { redis, scheme = 'random', keyPrefix } = options;
  const keys = new SessionKeys(scheme, keyPrefix);
  const maxAge = maxAgeMs(options.maxAgeSeconds);

  /** The user's indexed token hashes and the current one, which is theirs whatever the index says. */
  async function tokenIdsOf(username: string, currentId: string): Promise<string[]> {
    if (scheme === 'md5') return [currentId];
    const indexed = await redis.smembers(keys.index(username));
    return indexed.includes(currentId) ? indexed : [...indexed, currentId];
  }

  /** The live sessions, and the index rid of the expired ones. */
  async function live(username: string, currentToken: string): Promise<Found[]> {
    const currentId = keys.tokenId(currentToken);
    const tokenIds = await tokenIdsOf(username, currentId);
    const now = Date.now();
    const replies = (await Promise.all(
      tokenIds.map((tokenId) =>
        DESCRIBE.run(redis, keys.ofTokenId(tokenId), [
          newSessionId(),
          now,
          maxAge,
          ...originArgs(),
        ]),
      ),
    )) as Described[];
    const found: Found[] = [];
    const expired: string[] = [];
    replies.forEach((reply, i) => {
      const tokenId = tokenIds[i] as string;
      if (reply === null) expired.push(tokenId);
      else if (reply[0].toLowerCase() === username.toLowerCase()) {
        const [, left, id, createdAt, lastSeenAt, ip, userAgent] = reply;
        const current = tokenId === currentId;
        const expiresAt = iso(now + left);
        const info = { id, current, createdAt: iso(createdAt), lastSeenAt: iso(lastSeenAt) };
        found.push({ tokenId, info: { ...info, expiresAt, userAgent, ip } });
      }
    });
    if (scheme === 'random' && expired.length > 0) {
      await redis.srem(keys.index(username), ...expired);
    }
    return found;
  }

  /** Ends these sessions and drops them from the index; resolves how many were live. */
  async function endSessions(username: string, tokenIds: string[]): Promise<number> {
    let ended = 0;
    for (let start = 0; start < tokenIds.length; start += END_BATCH) {
      const batch = tokenIds.slice(start, start + END_BATCH);
      const live = await Promise.all(
        batch.map((tokenId) => END.run(redis, keys.ofTokenId(tokenId), [])),
      );
      ended += live.filter((reply) => reply === 1).length;
      // Only the hashes read and ended: a session written meanwhile stays indexed.
      if (scheme === 'random') await redis.srem(keys.index(username), ...batch);
    }
    return ended;
  }

  async function list(username: string, currentToken: string): Promise<SessionInfo[]> {
    return (await live(username, currentToken))
      .map(({ info }) => info)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  }

  async function end(username: string, currentToken: string, id: string): Promise<boolean> {
    if (!SESSION_ID.test(id)) return false;
    const target = (await live(username, currentToken)).find(({ info }) => info.id === id);
    return target !== undefined && (await endSessions(username, [target.tokenId])) === 1;
  }

  async function endOthers(username: string, currentToken: string): Promise<number> {
    const currentId = keys.tokenId(currentToken);
    const others = (await tokenIdsOf(username, currentId)).filter((id) => id !== currentId);
    return endSessions(username, others);
  }

  async function endAll(username: string, currentToken: string): Promise<number> {
    return endSessions(username, await tokenIdsOf(username, keys.tokenId(currentToken)));
  }

  return {
    list: (username, currentToken) => fromStore(list(username, currentToken)),
    end: (username, currentToken, id) => fromStore(end(username, currentToken, id)),
    endOthers: (username, currentToken) => fromStore(endOthers(username, currentToken)),
    endAll: (username, currentToken) => fromStore(endAll(username, currentToken)),
  };
}
