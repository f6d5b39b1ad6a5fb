import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '@svc/common';
import type { RequestHandler } from 'express';
import { ADMIN_TOKEN_REQUIRED } from './messages.js';

const BEARER = 'Bearer ';

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
    const header = req.headers.authorization;
    const bearer = typeof header === 'string' && header.startsWith(BEARER);
    const presented = digest(bearer ? header.slice(BEARER.length) : '');
    const matches = timingSafeEqual(presented, expected) && bearer;
    next(matches ? undefined : new AppError(401, ADMIN_TOKEN_REQUIRED));
  };
}
