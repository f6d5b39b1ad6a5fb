import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { SessionStore } from './session-store.js';
import { md5Token, randomToken, type TokenScheme } from './token.js';

export interface TestSessionOptions {
  username: string;
  /** Must match the guard's. Default `random`. */
  scheme?: TokenScheme;
  /** Must match the guard's when it sets one. */
  keyPrefix?: string;
  /** Default 3600. */
  ttlSeconds?: number;
  /** md5 only: the password the token is made from. Default: a random one. */
  password?: string;
  /** What the session records of its login. Default: no User-Agent, address `unknown`. */
  userAgent?: string;
  ip?: string;
}

/**
 * Writes a session exactly as the auth service's login does and returns its
 * token, so a team can test its own guarded routes without the auth service.
 */
export async function createTestSession(
  redis: Redis | Cluster,
  options: TestSessionOptions,
): Promise<string> {
  const { username, scheme = 'random', keyPrefix, ttlSeconds = 3600, userAgent, ip } = options;
  const token =
    scheme === 'md5'
      ? md5Token(username, options.password ?? randomBytes(12).toString('hex'))
      : randomToken();
  const login = { headers: userAgent === undefined ? {} : { 'user-agent': userAgent }, ip };
  const store = new SessionStore({ redis, scheme, keyPrefix });
  await store.create(token, username, ttlSeconds, login);
  await store.trim(token, username);
  return token;
}
