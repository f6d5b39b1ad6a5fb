import type { Logger, RedisClient } from '@svc/common';
import type { Cluster, Redis } from 'ioredis';

/** The one policy under which Redis never drops a key to make room. */
const NO_EVICTION = 'noeviction';

const REASON =
  'Redis may evict keys when memory runs short, and the judging queue that shares this Redis ' +
  'can fill it: an evicted session index or password-change marker lets sessions outlive ' +
  'logout-all, DELETE /api/user/sessions and password changes. Set maxmemory-policy noeviction.';

/** A master's maxmemory-policy, or the error that kept it from being read. */
async function policyOf(node: Redis): Promise<string> {
  const [, policy] = (await node.config('GET', 'maxmemory-policy')) as [string, string];
  if (policy === undefined) throw new Error('CONFIG GET maxmemory-policy returned nothing');
  return policy;
}

const mastersOf = (redis: RedisClient): Redis[] =>
  'nodes' in redis && typeof redis.nodes === 'function'
    ? (redis as Cluster).nodes('master')
    : [redis as Redis];

/**
 * Reads every master's maxmemory-policy once, at start-up. Anything but
 * noeviction is logged as an error-level warning and returned, for /readyz to
 * show; a policy that cannot be read (managed services refuse CONFIG) is logged
 * once as a warning.
 */
export async function evictionWarnings(redis: RedisClient, logger: Logger): Promise<string[]> {
  let policies: string[];
  try {
    policies = await Promise.all(mastersOf(redis).map(policyOf));
  } catch (err) {
    logger.warn(
      { err: { message: (err as Error).message } },
      `cannot read Redis's maxmemory-policy; make sure it is ${NO_EVICTION}. ${REASON}`,
    );
    return [];
  }
  const evicting = [...new Set(policies.filter((policy) => policy !== NO_EVICTION))];
  if (evicting.length === 0) return [];
  const warning = `Redis maxmemory-policy is ${evicting.join(', ')}, not ${NO_EVICTION}. ${REASON}`;
  logger.error({ maxmemoryPolicy: evicting }, `WARNING: ${warning}`);
  return [warning];
}
