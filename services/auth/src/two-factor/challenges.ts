import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from '@svc/common';
import { fromRedis } from '../redis-failure.js';
import type { Counted } from '../users/login-limiter.js';

const CHALLENGE_PREFIX = 'auth:2fa-challenge:';
/** A challenge is good for this many second steps, right or wrong. */
export const CHALLENGE_TRIES = 5;

/** What a right password left for the second step: whose, and what the login would have issued. */
interface PendingLogin {
  userId: number;
  username: string;
  /** What the first step counted against; the second step's codes count against the same. */
  counted: Counted;
  /** The login's device id, and whether it came with a device token of the user. */
  device: string;
  newDevice: boolean;
  /** The stored password hash's SHA-256: a change since the first step ends the challenge. */
  hashPrint: string;
  /** TOKEN_SCHEME=md5 only: the token, computed from the password the first step had. */
  token?: string;
}

const CREATE = `
redis.call('HSET', KEYS[1], 'login', ARGV[1], 'tries', 0)
redis.call('EXPIRE', KEYS[1], ARGV[2])`;

/** Counts a try; the challenge is deleted once its tries are spent. */
const TAKE_TRY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if redis.call('HINCRBY', KEYS[1], 'tries', 1) > tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  return false
end
return redis.call('HGET', KEYS[1], 'login')`;

/** The challenge's key: the SHA-256 of it, so Redis never holds the challenge itself. */
const keyOf = (challenge: string) =>
  CHALLENGE_PREFIX + createHash('sha256').update(challenge).digest('hex');

/** The logins waiting for their second step, in Redis, each for `lifetimeSeconds`. */
export function challenges(redis: RedisClient, lifetimeSeconds: number) {
  return {
    async create(login: PendingLogin): Promise<string> {
      const challenge = randomBytes(32).toString('hex');
      await fromRedis(
        redis.eval(CREATE, 1, keyOf(challenge), JSON.stringify(login), lifetimeSeconds),
      );
      return challenge;
    },

    /** The login of a challenge alive with tries left, counting this one; undefined if none. */
    async take(challenge: string): Promise<PendingLogin | undefined> {
      const login = await fromRedis(redis.eval(TAKE_TRY, 1, keyOf(challenge), CHALLENGE_TRIES));
      return typeof login === 'string' ? (JSON.parse(login) as PendingLogin) : undefined;
    },

    /** Ends the challenge: its login is done, or can no longer be. */
    async end(challenge: string): Promise<void> {
      await fromRedis(redis.del(keyOf(challenge)));
    },
  };
}

export type Challenges = ReturnType<typeof challenges>;
