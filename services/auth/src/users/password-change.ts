import { AppError, messageBody, OutcomeUnknownError } from '@svc/common';
import { md5Token } from '@svc/session-guard';
import type { Request, Response } from 'express';
import { clientAddress } from '../http/client-address.js';
import { parseBody } from '../input/parse.js';
import type { SecurityLog } from '../security/security-log.js';
import type { SessionRepository } from '../sessions/session.repository.js';
import type { limitedChecks } from './limited-check.js';
import { hashPassword, verifyPassword } from './password.js';
import { passwordRefusal } from './password-strength.js';
import { sessionUser } from './session-user.js';
import { PASSWORD_CHANGED, WRONG_OLD_PASSWORD } from './user.messages.js';
import type { UserRepository, UserRow } from './user.repository.js';
import { changePasswordBody } from './user.schema.js';

/**
 * How long after a change its retry finishes it (the change stored, its
 * answer lost): the stored hash then verifies `newPassword`, not `oldPassword`.
 */
const RETRY_WINDOW_MS = 10 * 60 * 1000;

interface PasswordChangeDeps {
  users: UserRepository;
  sessions: SessionRepository;
  securityLog: SecurityLog;
  limitedCheck: ReturnType<typeof limitedChecks>;
}

/** Whether the request's old password is the stored one, or its new one is, from a change just made. */
async function verdictOf(user: UserRow, oldPassword: string, newPassword: string) {
  if ((await verifyPassword(oldPassword, user.password)).ok) return { ok: true, stored: false };
  const changed = user.passwordChangedAt;
  const recent = changed !== null && Date.now() - changed.getTime() <= RETRY_WINDOW_MS;
  const stored = recent && (await verifyPassword(newPassword, user.password)).ok;
  return { ok: stored, stored };
}

/**
 * POST /api/user/change-password. Its commit is one MySQL transaction: the
 * new hash and its `password_changed` event; a failure before it changed
 * nothing. After it, the credentials value that fails racing logins, then
 * every session, the current one last. A failure there leaves the change half
 * done, so it is an outcome unknown, never a failure: the same request sent
 * again finds the new password stored (within RETRY_WINDOW_MS) and finishes.
 */
export function passwordChange({ users, sessions, securityLog, limitedCheck }: PasswordChangeDeps) {
  return async function changePassword(req: Request, res: Response) {
    const { oldPassword, newPassword } = parseBody(changePasswordBody, req.body);
    const { user, token } = await sessionUser(req, users, sessions);
    // Before the old password's check: a refused new password is no guess of it, and counts nothing.
    const refusal = passwordRefusal(user.username, newPassword);
    if (refusal) throw new AppError(400, refusal);
    const { verdict, lockStarted } = await limitedCheck(
      req,
      res,
      user.username,
      { address: clientAddress(req) },
      () => verdictOf(user, oldPassword, newPassword),
    );
    if (!verdict.ok) {
      if (lockStarted) await securityLog.ofUser(req, user.id, { type: 'locked' });
      throw new AppError(400, WRONG_OLD_PASSWORD);
    }
    if (!verdict.stored) {
      const event = securityLog.entry(req, user.id, { type: 'password_changed' });
      await users.changePassword(user.id, await hashPassword(newPassword), [event]);
    }
    // md5: the old password's token, which a racing login would write again.
    const oldToken = sessions.scheme === 'md5' ? md5Token(user.username, oldPassword) : undefined;
    await sessions.endAllForNewPassword(user.username, token, oldToken).catch((err: unknown) => {
      throw err instanceof OutcomeUnknownError ? err : new OutcomeUnknownError('redis', err);
    });
    res.json(messageBody(200, PASSWORD_CHANGED));
  };
}
