import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Cluster, Redis } from 'ioredis';
import { CREDENTIALS_HOLD_MS, type SessionKeys } from './session-keys.js';
import { RETIRE } from './session-scripts.js';

/*
 * A password change against the logins racing it (session-keys.ts, `credentials`).
 * The change replaces the user's credentials value before it reads the index; a
 * login reads the value before it reads the password hash (its stamp) and again
 * after it has indexed its session. Whichever comes second sees the other.
 */

/** What a login read of its user's credentials before it read the password hash. */
export interface CredentialStamp {
  readonly value: string | null;
  /** performance.now() before the read. */
  readonly readAt: number;
}

/** A stamp as OPEN and RETIRE compare it: `-` for a write that checks none. */
export const stampArg = (stamp?: CredentialStamp) => (stamp ? `v:${stamp.value ?? ''}` : '-');

export async function readStamp(
  redis: Redis | Cluster,
  keys: SessionKeys,
  username: string,
): Promise<CredentialStamp> {
  const readAt = performance.now();
  return { value: await redis.get(keys.credentials(username)), readAt };
}

/**
 * A new credentials value, for CREDENTIALS_HOLD_MS; in md5 the old password's
 * token is also ended and retired for as long.
 */
export async function replaceCredentials(
  redis: Redis | Cluster,
  keys: SessionKeys,
  username: string,
  oldToken?: string,
): Promise<void> {
  const value = randomBytes(16).toString('hex');
  await redis.set(keys.credentials(username), value, 'PX', CREDENTIALS_HOLD_MS);
  if (keys.scheme === 'md5' && oldToken !== undefined) {
    const retired = [stampArg({ value, readAt: 0 }), CREDENTIALS_HOLD_MS];
    await RETIRE.run(redis, keys.ofToken(oldToken), retired);
  }
}

/**
 * Whether the password is unchanged since the stamp. A change writes a new
 * value that lives CREDENTIALS_HOLD_MS; within that time since the stamp, a
 * change would still be there, so none found means none happened.
 */
export async function stampHolds(
  redis: Redis | Cluster,
  keys: SessionKeys,
  username: string,
  stamp: CredentialStamp,
): Promise<boolean> {
  const value = await redis.get(keys.credentials(username));
  if (performance.now() - stamp.readAt >= CREDENTIALS_HOLD_MS) return false;
  return value === null || value === stamp.value;
}
