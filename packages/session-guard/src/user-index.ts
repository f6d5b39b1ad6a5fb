import type { Cluster, Redis } from 'ioredis';
import type { SessionKeys } from './session-keys.js';
import { newSessionId, originArgs } from './session-origin.js';
import { DESCRIBE, END } from './session-scripts.js';
import { SessionOutcomeUnknownError } from './store-error.js';
import { mayHaveWritten } from './write-outcome.js';

/**
 * Sessions read or ended per round of requests: a user's sessions are at most
 * the per-user cap, and never all asked for at once.
 */
const BATCH = 100;
/** Index entries a login looks at, to drop those of expired sessions. */
const PRUNE_SAMPLE = 16;

/** A live session as DESCRIBE reads it; times in ms since the epoch. */
interface DescribedSession {
  tokenId: string;
  leftMs: number;
  id: string;
  createdAt: number;
  lastSeenAt: number;
  ip: string;
  userAgent: string | null;
  /** When it was last used, to the second: Redis's own record of the key's last read or write. */
  lastUsedAt: number;
}

type DescribeReply = [number, string, string, string, string, string | null, number] | null;

/** How a store reads what it finds: the max age, and the lifetime its logins give (0: unknown). */
export interface SessionTimes {
  maxAgeMs: number;
  lifetimeMs: number;
}

/** Runs `work` on the items a batch at a time; the results in the items' order. */
async function inBatches<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += BATCH) {
    results.push(...(await Promise.all(items.slice(start, start + BATCH).map(work))));
  }
  return results;
}

/**
 * The sessions of these token ids that are live, each as a list shows it; the
 * ids of those that are gone in `gone`. A live one missing details gets them
 * (DESCRIBE), so none is ever renewed past where it now ends. Reading them
 * leaves Redis's record of their last use as it was.
 */
export async function describeSessions(
  redis: Redis | Cluster,
  keys: SessionKeys,
  tokenIds: string[],
  times: SessionTimes,
): Promise<{ live: DescribedSession[]; gone: string[] }> {
  const now = Date.now();
  const replies = await inBatches(
    tokenIds,
    (tokenId) =>
      DESCRIBE.run(redis, keys.ofTokenId(tokenId), [
        newSessionId(),
        now,
        times.maxAgeMs,
        times.lifetimeMs,
        ...originArgs(),
      ]) as Promise<DescribeReply>,
  );
  const live: DescribedSession[] = [];
  const gone: string[] = [];
  replies.forEach((reply, i) => {
    const tokenId = tokenIds[i] as string;
    if (reply === null) {
      gone.push(tokenId);
      return;
    }
    const [leftMs, id, createdAt, lastSeenAt, ip, userAgent, idleSeconds] = reply;
    const seen = Number(lastSeenAt);
    // Redis keeps no idle time under an LFU policy (-1): then lastSeenAt is all there is.
    const lastUsedAt = idleSeconds < 0 ? seen : Math.max(seen, now - idleSeconds * 1000);
    live.push({
      tokenId,
      leftMs,
      id,
      createdAt: Number(createdAt),
      lastSeenAt: seen,
      ip,
      userAgent,
      lastUsedAt,
    });
  });
  return { live, gone };
}

/**
 * Ends these sessions, `last` (when given) after all the others, and drops
 * them from the user's index; resolves how many were live. A failure once any
 * of them may have ended is a SessionOutcomeUnknownError; a failure before
 * any could is Redis's own error. The index entries are tidying: a failure to
 * drop them changes nothing, and the next listing or login drops them.
 */
export async function endSessions(
  redis: Redis | Cluster,
  keys: SessionKeys,
  username: string,
  tokenIds: string[],
  last?: string,
): Promise<number> {
  const others = tokenIds.filter((tokenId) => tokenId !== last);
  const batches: string[][] = [];
  for (let start = 0; start < others.length; start += BATCH) {
    batches.push(others.slice(start, start + BATCH));
  }
  if (last !== undefined) batches.push([last]);
  let ended = 0;
  let wrote = false;
  for (const batch of batches) {
    const outcomes = await Promise.allSettled(
      batch.map((tokenId) => END.run(redis, keys.ofTokenId(tokenId), [])),
    );
    const failures: unknown[] = [];
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') failures.push(outcome.reason);
      else {
        wrote = true;
        if (outcome.value === 1) ended += 1;
      }
    }
    if (failures.length > 0) {
      if (!wrote && !failures.some(mayHaveWritten)) throw failures[0];
      throw new SessionOutcomeUnknownError('ending the sessions stopped part way', {
        cause: failures[0],
      });
    }
    // Only the hashes read and ended: a session written meanwhile stays indexed.
    if (keys.scheme === 'random') await redis.srem(keys.index(username), ...batch).catch(() => 0);
  }
  return ended;
}

/**
 * Brings the user down to the cap: drops the index entries of expired sessions,
 * then ends the live ones used least recently (to the second; then the oldest
 * createdAt), never the one just written. It reads every entry, at most a few
 * beyond the cap.
 */
export async function endLeastRecentlyUsed(
  redis: Redis | Cluster,
  keys: SessionKeys,
  username: string,
  newTokenId: string,
  { maxPerUser, ...times }: SessionTimes & { maxPerUser: number },
): Promise<void> {
  const index = keys.index(username);
  const tokenIds = await redis.smembers(index);
  const { live, gone } = await describeSessions(redis, keys, tokenIds, times);
  if (gone.length > 0) await redis.srem(index, ...gone);
  const excess = live.length - maxPerUser;
  if (excess <= 0) return;
  const leastRecent = live
    .filter((session) => session.tokenId !== newTokenId)
    .sort((a, b) => a.lastUsedAt - b.lastUsedAt || a.createdAt - b.createdAt)
    .slice(0, excess);
  await endSessions(
    redis,
    keys,
    username,
    leastRecent.map((session) => session.tokenId),
  );
}

/** Drops expired sessions' hashes from a random handful of the index: a login costs the same. */
export async function pruneIndex(redis: Redis | Cluster, keys: SessionKeys, index: string) {
  const tokenIds = await redis.srandmember(index, PRUNE_SAMPLE);
  const live = await Promise.all(
    tokenIds.map((tokenId) => redis.exists(keys.ofTokenId(tokenId)[0])),
  );
  const expired = tokenIds.filter((_, i) => live[i] === 0);
  if (expired.length > 0) await redis.srem(index, ...expired);
}
