import { AppError } from '@svc/common';
import { INVALID_TOKEN_MESSAGE } from '@svc/session-guard';
import type { Request } from 'express';
import type { SessionRepository } from '../sessions/session.repository.js';
import { sessionOf } from '../sessions/session-guard.js';
import type { UserRepository, UserRow } from './user.repository.js';

/**
 * The user of a guarded request's session, with the session's token; a
 * session whose account is gone is ended (so is the point of it) and
 * answered as the guard answers a dead token.
 */
export async function sessionUser(
  req: Request,
  users: UserRepository,
  sessions: SessionRepository,
): Promise<{ user: UserRow; token: string }> {
  const { token, username } = sessionOf(req);
  const user = await users.findByUsername(username);
  if (user) return { user, token };
  await sessions.revoke(token, username);
  throw new AppError(401, INVALID_TOKEN_MESSAGE);
}
