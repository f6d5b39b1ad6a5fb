import type { Request, RequestHandler, Response } from 'express';
import { SessionStore } from '../sessions/session-store.js';
import { isWellFormedToken } from '../sessions/token.js';
import { readToken } from './read-token.js';
import type { GuardOptions } from './types.js';

export const NO_TOKEN_MESSAGE = '未携带Token,请先登录';
export const INVALID_TOKEN_MESSAGE = 'Token无效或已过期,请重新登录';
export const STORE_UNAVAILABLE_MESSAGE = '服务暂不可用,请稍后重试';

function answer(res: Response, code: number, message: string): void {
  res.status(code).json({ code, message });
}

function logToRequestLogger(err: unknown, req: Request): void {
  const log = (req as { log?: { error?: (obj: object, msg: string) => void } }).log;
  log?.error?.({ err }, 'session store unavailable');
}

/**
 * Express middleware that lets a request through only with a live session:
 * 401 without a token or without a session, 503 when Redis fails (a Redis
 * outage never logs anyone out). Roles are not checked.
 */
export function createGuard(options: GuardOptions): RequestHandler {
  const { redis, scheme = 'random', keyPrefix, sliding = false, ttlSeconds } = options;
  if (sliding && !(Number.isInteger(ttlSeconds) && (ttlSeconds as number) > 0)) {
    throw new TypeError('createGuard: sliding sessions need ttlSeconds, a positive integer');
  }
  const onStoreError = options.onStoreError ?? logToRequestLogger;
  const store = new SessionStore({ redis, scheme, keyPrefix });

  return async (req, res, next) => {
    const token = readToken(req.headers);
    if (token === undefined) return answer(res, 401, NO_TOKEN_MESSAGE);
    if (!isWellFormedToken(scheme, token)) return answer(res, 401, INVALID_TOKEN_MESSAGE);

    let username: string | null;
    try {
      username = sliding
        ? await store.lookupAndRenew(token, ttlSeconds as number)
        : await store.lookup(token);
    } catch (err) {
      onStoreError(err, req);
      return answer(res, 503, STORE_UNAVAILABLE_MESSAGE);
    }
    if (username === null) return answer(res, 401, INVALID_TOKEN_MESSAGE);

    req.token = token;
    req.user = { username };
    next();
  };
}
