import type { Cluster, Redis } from 'ioredis';
import type { SessionKeys } from './session-keys.js';
import { newSessionId, originArgs } from './session-origin.js';
import { DESCRIBE, END } from './session-scripts.js';

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
  username: string;
  leftMs: number;
  id: string;
  createdAt: number;
  lastSeenAt: number;
  ip: string;
  userAgent: string | null;
}

type DescribeReply = [string, number, string, string, string, string, string | null] | null;

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
 * (DESCRIBE), so none is ever renewed past where it now ends.
 */
export async function describeSessions(
  redis: Redis | Cluster,
  keys: SessionKeys,
  tokenIds: string[],
  maxAgeMs: number,
): Promise<{ live: DescribedSession[]; gone: string[] }> {
  const now = Date.now();
  const replies = await inBatches(
    tokenIds,
    (tokenId) =>
      DESCRIBE.run(redis, keys.ofTokenId(tokenId), [
        newSessionId(),
        now,
        maxAgeMs,
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
    const [username, leftMs, id, createdAt, lastSeenAt, ip, userAgent] = reply;
    const times = { createdAt: Number(createdAt), lastSeenAt: Number(lastSeenAt) };
    live.push({ tokenId, username, leftMs, id, ...times, ip, userAgent });
  });
  return { live, gone };
}

/** Ends these sessions and drops them from the user's index; resolves how many were live. */
export async function endSessions(
  redis: Redis | Cluster,
  keys: SessionKeys,
  username: string,
  tokenIds: string[],
): Promise<number> {
  let ended = 0;
  for (let start = 0; start < tokenIds.length; start += BATCH) {
    const batch = tokenIds.slice(start, start + BATCH);
    const live = await Promise.all(
      batch.map((tokenId) => END.run(redis, keys.ofTokenId(tokenId), [])),
    );
    ended += live.filter((reply) => reply === 1).length;
    // Only the hashes read and ended: a session written meanwhile stays indexed.
    if (keys.scheme === 'random') await redis.srem(keys.index(username), ...batch);
  }
  return ended;
}

/**
 * Brings the user down to the cap: drops the index entries of expired sessions,
 * then ends the live ones with the oldest lastSeenAt (then createdAt), never the
 * one just written. It reads every entry, at most a few beyond the cap.
 */
export async function endLeastRecentlyUsed(
  redis: Redis | Cluster,
  keys: SessionKeys,
  username: string,
  newTokenId: string,
  { maxPerUser, maxAgeMs }: { maxPerUser: number; maxAgeMs: number },
): Promise<void> {
  const index = keys.index(username);
  const tokenIds = await redis.smembers(index);
  const { live, gone } = await describeSessions(redis, keys, tokenIds, maxAgeMs);
  if (gone.length > 0) await redis.srem(index, ...gone);
  const excess = live.length - maxPerUser;
  if (excess <= 0) return;
  const oldest = live
    .filter((session) => session.tokenId !== newTokenId)
    .sort((a, b) => a.lastSeenAt - b.lastSeenAt || a.createdAt - b.createdAt)
    .slice(0, excess);
  await endSessions(
    redis,
    keys,
    username,
    oldest.map((session) => session.tokenId),
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
