import type { RedisClient } from '@svc/common';
import { loginFailuresKey } from '../sessions/session-store.js';

export interface LimiterSettings {
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

export type Admission = { allowed: true } | { allowed: false; retryAfter: number };

/*
 * One key per script call, so it runs unchanged on a Redis Cluster.
 *
 * Counts the attempt before the password is checked, in one atomic step, so
 * parallel attempts cannot slip past the limit: only the first maxFailures of
 * a window are checked at all. The attempt that reaches the limit starts the
 * lock, which therefore lasts lockSeconds from then; later attempts leave it.
 */
const ATTEMPT = `
local count = redis.call('INCR', KEYS[1])
local max = tonumber(ARGV[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if count == max then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
if count <= max then return -1 end
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  ttl = tonumber(ARGV[3])
end
return ttl`;

/** Failed logins per (username, client address); Redis errors propagate. */
export class LoginLimiter {
  constructor(
    private readonly redis: RedisClient,
    private readonly settings: LimiterSettings,
  ) {}

  async attempt(username: string, address: string): Promise<Admission> {
    const { maxFailures, windowSeconds, lockSeconds } = this.settings;
    const key = loginFailuresKey(username, address);
    const ttl = Number(
      await this.redis.eval(ATTEMPT, 1, key, maxFailures, windowSeconds, lockSeconds),
    );
    return ttl === -1 ? { allowed: true } : { allowed: false, retryAfter: Math.max(ttl, 1) };
  }

  /** A success ends the run of failures. */
  async reset(username: string, address: string): Promise<void> {
    await this.redis.del(loginFailuresKey(username, address));
  }
}
