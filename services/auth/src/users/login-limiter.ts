import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BusyError, type RedisClient } from '@svc/common';
import { fromRedis } from '../redis-failure.js';
import { ADMIT, ADMIT_DEVICE, SETTLE } from './login-limiter-scripts.js';

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

/** Failures the user's devices share while the account's budget is spent. */
function devicesFailuresKey(username: string): string {
  return `${usernameKeys(username)}!devices`;
}

/** The device of the user's last successful login. */
export function lastDeviceKey(username: string): string {
  return `${usernameKeys(username)}!last-device`;
}

/**
 * How long the last device is remembered: device tokens do not expire, and
 * the owner's device is spared the devices' shared budget however long ago it
 * logged in, within a year and a month.
 */
const LAST_DEVICE_SECONDS = 400 * 24 * 3600;

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
 * of the user (and, while that budget is spent, the budget its devices share).
 */
export type Counted = { address: string; account?: boolean } | { deviceId: string };

/** A password check the limiter allowed; settle it with its outcome. */
interface Slot {
  username: string;
  /** What it counts against, and each one's limit. */
  keys: string[];
  limits: number[];
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

  /** A slot, or why there is none, from an ADMIT's answer. */
  function attemptOf(
    answer: number,
    slot: { username: string; keys: string[]; limits: number[]; id: string },
  ): Attempt {
    const { username, keys, limits, id } = slot;
    if (answer === -1) return { outcome: 'admitted', slot };
    if (answer === -3) {
      // A device's check while the account is locked: also against the devices' shared budget.
      const shared = devicesFailuresKey(username);
      const slot = { username, keys: [...keys, shared], limits: [...limits, maxFailures], id };
      return { outcome: 'admitted', slot };
    }
    if (answer === -2) return { outcome: 'busy' };
    return { outcome: 'locked', retryAfter: answer };
  }

  async function tryAdmit(username: string, counted: Counted): Promise<Attempt> {
    const id = randomUUID();
    const now = Date.now();
    if ('deviceId' in counted) {
      const device = deviceFailuresKey(username, counted.deviceId);
      const keys = [device, accountFailuresKey(username), devicesFailuresKey(username)];
      const answer = await script(
        ADMIT_DEVICE,
        [...keys, lastDeviceKey(username)],
        now,
        id,
        SLOT_MS,
        windowSeconds,
        maxFailures,
        accountMaxFailures,
        counted.deviceId,
      );
      return attemptOf(Number(answer), { username, keys: [device], limits: [maxFailures], id });
    }
    const pair = loginFailuresKey(username, counted.address);
    const keys = counted.account ? [pair, accountFailuresKey(username)] : [pair];
    const answer = await script(
      ADMIT,
      keys,
      now,
      id,
      SLOT_MS,
      windowSeconds,
      maxFailures,
      accountMaxFailures,
    );
    const limits = counted.account ? [maxFailures, accountMaxFailures] : [maxFailures];
    return attemptOf(Number(answer), { username, keys, limits, id });
  }

  return {
    /**
     * A slot for one password check, or the lock of what it counts against.
     * While other checks are in flight and could still reach a limit, it waits
     * for them (up to BUSY_WAIT_MS, and only while `wanted()` holds), then gives
     * up with a BusyError.
     */
    async admit(username: string, counted: Counted, wanted: () => boolean): Promise<Admission> {
      const deadline = Date.now() + BUSY_WAIT_MS;
      for (;;) {
        const attempt = await tryAdmit(username, counted);
        if (attempt.outcome !== 'busy') return attempt;
        if (Date.now() > deadline || !wanted()) throw new BusyError(BUSY_RETRY_AFTER_SECONDS);
        await sleep(BUSY_RETRY_MS + Math.random() * BUSY_RETRY_MS);
      }
    },

    /**
     * Records how the check went, and on a success `device` (the login's) as
     * the user's last device; true when this failure started a lock.
     */
    async settle(slot: Slot, outcome: CheckOutcome, device = ''): Promise<boolean> {
      const locked = await script(
        SETTLE,
        [lastDeviceKey(slot.username), ...slot.keys],
        slot.id,
        outcome,
        windowSeconds,
        lockSeconds,
        device,
        LAST_DEVICE_SECONDS,
        ...slot.limits,
      );
      return Number(locked) === 1;
    },
  };
}

export type LoginLimiter = ReturnType<typeof loginLimiter>;
