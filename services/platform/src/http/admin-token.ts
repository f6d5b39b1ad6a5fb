import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, bearerToken } from '@svc/common';
import type { RequestHandler } from 'express';
import { ADMIN_TOKEN_REQUIRED } from './messages.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The guard of the administrator routes while PLATFORM_ADMIN_TOKEN is set:
 * `Authorization: Bearer <token>` exactly, or the route's own envelope with
 * code 401. Digests of equal length make the comparison constant-time whatever
 * is sent. Without a token it lets every request through: the routes stay
 * open, as the spec has them.
 */
export function adminOnly(token: string | undefined): RequestHandler {
  if (!token) return (_req, _res, next) => next();
  const expected = digest(token);
  return (req, _res, next) => {
    const presented = bearerToken(req.headers.authorization);
    const matches = timingSafeEqual(digest(presented ?? ''), expected) && presented !== undefined;
    next(matches ? undefined : new AppError(401, ADMIN_TOKEN_REQUIRED));
  };
}
