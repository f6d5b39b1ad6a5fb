import { AppError, messageBody } from '@svc/common';
import { randomToken } from '@svc/session-guard';
import type { Request, Response } from 'express';
import type { LoginOutcome } from '../auth-metrics.js';
import { parseBody } from '../input/parse.js';
import type { SecretRepository } from '../security/secret.repository.js';
import type { SecurityLog } from '../security/security-log.js';
import type { SessionRepository } from '../sessions/session.repository.js';
import { deviceTokenOf } from '../users/device-token.js';
import type { limitedChecks } from '../users/limited-check.js';
import type { SessionOpening } from '../users/session-opening.js';
import { LOGGED_IN } from '../users/user.messages.js';
import type { UserRepository } from '../users/user.repository.js';
import type { Challenges } from './challenges.js';
import { hashPrintOf } from './hash-print.js';
import { proofOf } from './second-factor.js';
import { CHALLENGE_GONE, WRONG_CODE } from './two-factor.messages.js';
import type { TwoFactorRepository } from './two-factor.repository.js';
import { secondStepBody } from './two-factor.schema.js';

export interface SecondStepDeps {
  users: UserRepository;
  sessions: SessionRepository;
  opening: SessionOpening;
  twoFactor: TwoFactorRepository;
  challenges: Challenges;
  secrets: SecretRepository;
  securityLog: SecurityLog;
  limitedCheck: ReturnType<typeof limitedChecks>;
  onLogin?: (outcome: LoginOutcome) => void;
}

/**
 * POST /api/user/login/2fa: the challenge of a right password, and a TOTP
 * code or a recovery code. The code is checked in a limiter slot counted
 * against what the password's check counted against; its session is opened,
 * then committed with the code spent and the `login` event in one MySQL
 * transaction, so of two steps with one code one wins and the other's
 * session is ended again before it answers.
 */
export function loginSecondStep(deps: SecondStepDeps) {
  const { users, sessions, opening, twoFactor, challenges, secrets, securityLog } = deps;
  const { limitedCheck, onLogin } = deps;

  return async function secondStep(req: Request, res: Response) {
    const { challenge, code } = parseBody(secondStepBody, req.body);
    const pending = await challenges.take(challenge);
    if (!pending) throw new AppError(401, CHALLENGE_GONE);
    // Before the hash is read, as a login's: a password change from here on fails this step.
    const stamp = await sessions.stamp(pending.username);
    const user = await users.findByUsername(pending.username);
    const same = user?.id === pending.userId && hashPrintOf(user.password) === pending.hashPrint;
    const totp = user && same ? await twoFactor.totpOf(user.id) : undefined;
    if (!user || !totp?.enabled) {
      await challenges.end(challenge);
      throw new AppError(401, CHALLENGE_GONE);
    }
    const deviceSecret = await secrets.secret('device');
    const token = pending.token ?? randomToken();
    const check = async () => {
      const proof = proofOf(totp, code);
      if (!proof) return { ok: false } as const;
      const session = await opening.open(req, user.username, token, stamp);
      if (session === null) throw new AppError(401, CHALLENGE_GONE);
      const login = { type: 'login', newDevice: pending.newDevice, sessionId: session.id } as const;
      const events = [securityLog.entry(req, user.id, login)];
      if ('recoveryHash' in proof) {
        events.push(securityLog.entry(req, user.id, { type: 'recovery_code_used' }));
      }
      const written = opening.commit(token, user.username, () =>
        twoFactor.withProof(user.id, proof, events),
      );
      return (await written) ? ({ ok: true, session } as const) : ({ ok: false } as const);
    };
    const { verdict, lockStarted } = await limitedCheck(
      req,
      res,
      user.username,
      pending.counted,
      check,
      pending.device,
    ).catch((err) => {
      if (err instanceof AppError && err.status === 429) onLogin?.('locked');
      throw err;
    });
    if (!verdict.ok) {
      await securityLog.ofUser(req, user.id, { type: 'login_2fa_failed' });
      if (lockStarted) await securityLog.ofUser(req, user.id, { type: 'locked' });
      onLogin?.('failure');
      throw new AppError(401, WRONG_CODE);
    }
    // The login happened; a challenge not ended lives out its time and tries, each needing an unspent code.
    await challenges.end(challenge).catch((err: unknown) => {
      req.log.warn({ err }, 'ending a used two-factor challenge failed');
    });
    await opening.trim(req, token, user.username);
    onLogin?.('success');
    const device = { id: user.id, password: user.password };
    const deviceToken = deviceTokenOf(deviceSecret, device, pending.device);
    const answer = { token, expiresIn: verdict.session.expiresIn, deviceToken };
    res.json(messageBody(200, LOGGED_IN, answer));
  };
}
