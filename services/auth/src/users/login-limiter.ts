import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BusyError, fromRedis, type RedisClient } from '@svc/common';

const LOGIN_FAILURES_PREFIX = 'auth:login-failures:';

// Half of a surrogate pair, alone. JSON may carry one, and encodeURIComponent throws on it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The limiter's key: `auth:login-failures:<encoded lowercased username>:<address>`.
 * The username is URI-encoded, so the first `:` after it starts the address. A
 * lone surrogate counts as U+FFFD, as it does in MySQL and in a password hash.
 */
export function loginFailuresKey(username: string, address: string): string {
  const name = username.toLowerCase().replace(LONE_SURROGATE, '\ufffd');
  return `${LOGIN_FAILURES_PREFIX}${encodeURIComponent(name)}:${address}`;
}

interface LimiterSettings {
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

/** A password check the limiter allowed; settle it with its outcome. */
export interface Slot {
  key: string;
  id: string;
}

type Admission = { outcome: 'admitted'; slot: Slot } | { outcome: 'locked'; retryAfter: number };
type Attempt = Admission | { outcome: 'busy' };

type CheckOutcome = 'succeeded' | 'failed' | 'abandoned';

/*
 * One hash per (username, client address), so each script touches one key and
 * runs unchanged on a Redis Cluster. Field `failures` counts the failed checks
 * recorded; one field `p:<id>` per check in flight holds the time (ms) after
 * which it no longer counts, so a process that dies mid-check frees its slot.
 *
 * A check is admitted only while recorded failures plus checks in flight stay
 * under the limit: however many attempts arrive at once, no more than
 * maxFailures can ever reach the password check before the lock, and a right
 * password is refused only once maxFailures failures are recorded. Attempts
 * beyond the free slots are told to wait ('busy') for the ones in flight.
 *
 * A key left by the previous limiter (a plain counter) is read as failures.
 */
const ADMIT = `
local key, max, window, now, id, slotMs = KEYS[1], tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
if redis.call('TYPE', key).ok == 'string' then
  local count, ttl = redis.call('GET', key), redis.call('PTTL', key)
  redis.call('DEL', key)
  redis.call('HSET', key, 'failures', count)
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
end
local fields = redis.call('HGETALL', key)
local failures, inFlight = 0, 0
for i = 1, #fields, 2 do
  local name, value = fields[i], fields[i + 1]
  if name == 'failures' then
    failures = tonumber(value)
  elseif tonumber(value) < now then
    redis.call('HDEL', key, name)
  else
    inFlight = inFlight + 1
  end
end
if failures >= max then
  return math.max(redis.call('TTL', key), 1)
end
if failures + inFlight >= max then return -2 end
redis.call('HSET', key, 'p:' .. id, now + slotMs)
if redis.call('TTL', key) < 0 then redis.call('EXPIRE', key, window) end
return -1`;

/*
 * Ends a check. A failure is recorded; the one that reaches the limit starts
 * the lock, which lasts lockSeconds from then. A success ends the run of
 * failures. A check that could not finish (a store failed) only frees its slot.
 */
const SETTLE = `
local key, outcome, max, window, lock = KEYS[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]
redis.call('HDEL', key, 'p:' .. ARGV[1])
if outcome == 'succeeded' then redis.call('HDEL', key, 'failures') end
if outcome ~= 'failed' then return 0 end
local failures = redis.call('HINCRBY', key, 'failures', 1)
if failures == 1 then redis.call('EXPIRE', key, window) end
if failures == max then redis.call('EXPIRE', key, lock) end
return failures`;

/** A check that takes longer than this no longer holds its slot. */
const SLOT_MS = 30_000;
/** How long an attempt waits for other checks of its pair in flight, and how often it asks. */
const BUSY_WAIT_MS = 10_000;
const BUSY_RETRY_MS = 15;
/** An attempt that gave up waiting may try again this soon. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** Failed logins per (username, client address); a Redis failure is a StoreUnavailableError. */
export function loginLimiter(redis: RedisClient, settings: LimiterSettings) {
  const { maxFailures, windowSeconds, lockSeconds } = settings;
  const script = (lua: string, key: string, ...args: (string | number)[]) =>
    fromRedis(redis.eval(lua, 1, key, ...args));

  async function tryAdmit(key: string): Promise<Attempt> {
    const id = randomUUID();
    const answer = Number(
      await script(ADMIT, key, maxFailures, windowSeconds, Date.now(), id, SLOT_MS),
    );
    if (answer === -1) return { outcome: 'admitted', slot: { key, id } };
    if (answer === -2) return { outcome: 'busy' };
    return { outcome: 'locked', retryAfter: answer };
  }

  return {
    /**
     * A slot for one password check, or the pair's lock. While other checks of
     * the pair are in flight and could still reach the limit, it waits for them
     * (up to BUSY_WAIT_MS, and only while `wanted()` holds), then gives up
     * with a BusyError.
     */
    async admit(username: string, address: string, wanted: () => boolean): Promise<Admission> {
      const deadline = Date.now() + BUSY_WAIT_MS;
      for (;;) {
        const attempt = await tryAdmit(loginFailuresKey(username, address));
        if (attempt.outcome !== 'busy') return attempt;
        if (Date.now() > deadline || !wanted()) throw new BusyError(BUSY_RETRY_AFTER_SECONDS);
        await sleep(BUSY_RETRY_MS + Math.random() * BUSY_RETRY_MS);
      }
    },

    async settle(slot: Slot, outcome: CheckOutcome): Promise<void> {
      await script(SETTLE, slot.key, slot.id, outcome, maxFailures, windowSeconds, lockSeconds);
    },
  };
}

export type LoginLimiter = ReturnType<typeof loginLimiter>;
