import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BusyError, type RedisClient } from '@svc/common';
import { fromRedis } from '../redis-failure.js';
import { ADMIT, SETTLE } from './login-limiter-scripts.js';

const LOGIN_FAILURES_PREFIX = 'auth:login-failures:';

// Half of a surrogate pair, alone. JSON may carry one, and encodeURIComponent throws on it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Every key of one username starts `auth:login-failures:{<encoded lowercased
 * username>}:`. The braces are a Redis Cluster hash tag, so the keys of one
 * username share a slot and one script can read and write them together; the
 * encoding leaves no brace or `:` inside them. A lone surrogate counts as U+FFFD,
 * as it does in MySQL and in a password hash.
 */
function usernameKeys(username: string): string {
  const name = username.toLowerCase().replace(LONE_SURROGATE, '\ufffd');
  return `${LOGIN_FAILURES_PREFIX}{${encodeURIComponent(name)}}:`;
}

/** Failures of one (username, client address) pair: `auth:login-failures:{<name>}:<address>`. */
export function loginFailuresKey(username: string, address: string): string {
  return usernameKeys(username) + address;
}

/** Failures of a username from every address that came without a device token of its user. */
export function accountFailuresKey(username: string): string {
  return `${usernameKeys(username)}!account`;
}

/** Failures of logins that came with one device token of the user. */
export function deviceFailuresKey(username: string, deviceId: string): string {
  return `${usernameKeys(username)}!device:${deviceId}`;
}

interface LimiterSettings {
  maxFailures: number;
  /** The budget of a username across every address (without a device token). */
  accountMaxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

/**
 * What a check counts against: the (username, address) pair, and with
 * `account` also the username's budget across all addresses; or one device
 * of the user, alone.
 */
export type Counted = { address: string; account?: boolean } | { deviceId: string };

/** A password check the limiter allowed; settle it with its outcome. */
interface Slot {
  keys: string[];
  id: string;
}

type Admission = { outcome: 'admitted'; slot: Slot } | { outcome: 'locked'; retryAfter: number };
type Attempt = Admission | { outcome: 'busy' };

type CheckOutcome = 'succeeded' | 'failed' | 'abandoned';

/** A check that takes longer than this no longer holds its slot. */
const SLOT_MS = 30_000;
/** How long an attempt waits for other checks of its keys in flight, and how often it asks. */
const BUSY_WAIT_MS = 10_000;
const BUSY_RETRY_MS = 15;
/** An attempt that gave up waiting may try again this soon. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Failed logins per (username, client address), per username across all
 * addresses, and per device; a Redis failure is a StoreUnavailableError.
 */
export function loginLimiter(redis: RedisClient, settings: LimiterSettings) {
  const { maxFailures, accountMaxFailures, windowSeconds, lockSeconds } = settings;
  const script = (lua: string, keys: string[], ...args: (string | number)[]) =>
    fromRedis(redis.eval(lua, keys.length, ...keys, ...args));

  function keysOf(username: string, counted: Counted): string[] {
    if ('deviceId' in counted) return [deviceFailuresKey(username, counted.deviceId)];
    const pair = loginFailuresKey(username, counted.address);
    return counted.account ? [pair, accountFailuresKey(username)] : [pair];
  }

  async function tryAdmit(keys: string[]): Promise<Attempt> {
    const id = randomUUID();
    const answer = Number(
      await script(
        ADMIT,
        keys,
        Date.now(),
        id,
        SLOT_MS,
        windowSeconds,
        maxFailures,
        accountMaxFailures,
      ),
    );
    if (answer === -1) return { outcome: 'admitted', slot: { keys, id } };
    if (answer === -2) return { outcome: 'busy' };
    return { outcome: 'locked', retryAfter: answer };
  }

  return {
    /**
     * A slot for one password check, or the lock of what it counts against.
     * While other checks are in flight and could still reach a limit, it waits
     * for them (up to BUSY_WAIT_MS, and only while `wanted()` holds), then gives
     * up with a BusyError.
     */
    async admit(username: string, counted: Counted, wanted: () => boolean): Promise<Admission> {
      const keys = keysOf(username, counted);
      const deadline = Date.now() + BUSY_WAIT_MS;
      for (;;) {
        const attempt = await tryAdmit(keys);
        if (attempt.outcome !== 'busy') return attempt;
        if (Date.now() > deadline || !wanted()) throw new BusyError(BUSY_RETRY_AFTER_SECONDS);
        await sleep(BUSY_RETRY_MS + Math.random() * BUSY_RETRY_MS);
      }
    },

    /** Records how the check went; true when this failure started a lock. */
    async settle(slot: Slot, outcome: CheckOutcome): Promise<boolean> {
      const locked = await script(
        SETTLE,
        slot.keys,
        slot.id,
        outcome,
        windowSeconds,
        lockSeconds,
        maxFailures,
        accountMaxFailures,
      );
      return Number(locked) === 1;
    },
  };
}

export type LoginLimiter = ReturnType<typeof loginLimiter>;
