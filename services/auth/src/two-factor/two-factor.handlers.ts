import { AppError, messageBody, type Statement } from '@svc/common';
import type { TokenScheme } from '@svc/session-guard';
import type { Request, Response } from 'express';
import { clientAddress } from '../http/client-address.js';
import { parseBody } from '../input/parse.js';
import { verifyPassword } from '../users/password.js';
import { sessionUser } from '../users/session-user.js';
import type { UserRow } from '../users/user.repository.js';
import { loginSecondStep, type SecondStepDeps } from './login-second-step.js';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';
import { proofOf } from './second-factor.js';
import { enrolmentOf, newTotpSecret, stepOfCode } from './totp.js';
import {
  NOT_UNDER_MD5,
  RECOVERY_CODES_RENEWED,
  TOTP_ALREADY_ON,
  TOTP_DISABLED,
  TOTP_ENABLED,
  TOTP_NOT_ON,
  TOTP_NOT_SET_UP,
  TOTP_SET_UP,
  WRONG_CODE,
  WRONG_PASSWORD_OR_CODE,
} from './two-factor.messages.js';
import { confirmBody, passwordAndCodeBody } from './two-factor.schema.js';

interface TwoFactorDeps extends SecondStepDeps {
  scheme: TokenScheme;
}

/** The login's second step, and the routes that set up, confirm and turn off TOTP and renew the recovery codes. */
export function twoFactorHandlers(deps: TwoFactorDeps) {
  const { users, sessions, twoFactor, securityLog, limitedCheck, scheme } = deps;

  const userOf = async (req: Request) => (await sessionUser(req, users, sessions)).user;

  /**
   * A change that needs the password and a current code (or a recovery
   * code): both checked in one limiter slot, counted against the account's
   * budget as a login is, the code spent with `change` in one transaction.
   */
  async function withPasswordAndCode(
    req: Request,
    res: Response,
    change: (user: UserRow) => Statement[],
  ): Promise<void> {
    const { password, code } = parseBody(passwordAndCodeBody, req.body);
    const user = await userOf(req);
    const totp = await twoFactor.totpOf(user.id);
    if (!totp?.enabled) throw new AppError(409, TOTP_NOT_ON);
    const counted = { address: clientAddress(req), account: true };
    const { verdict, lockStarted } = await limitedCheck(
      req,
      res,
      user.username,
      counted,
      async () => {
        if (!(await verifyPassword(password, user.password)).ok) return { ok: false };
        const proof = proofOf(totp, code);
        if (!proof) return { ok: false };
        const used =
          'recoveryHash' in proof
            ? [securityLog.entry(req, user.id, { type: 'recovery_code_used' })]
            : [];
        return { ok: await twoFactor.withProof(user.id, proof, [...change(user), ...used]) };
      },
    );
    if (verdict.ok) return;
    if (lockStarted) await securityLog.ofUser(req, user.id, { type: 'locked' });
    throw new AppError(400, WRONG_PASSWORD_OR_CODE);
  }

  const hashesOf = (codes: string[]) => codes.map(recoveryCodeHash);

  return {
    secondStep: loginSecondStep(deps),

    async setup(req: Request, res: Response) {
      if (scheme === 'md5') throw new AppError(400, NOT_UNDER_MD5);
      const user = await userOf(req);
      const secret = newTotpSecret();
      if (!(await twoFactor.setUp(user.id, secret))) throw new AppError(409, TOTP_ALREADY_ON);
      res.json(messageBody(200, TOTP_SET_UP, await enrolmentOf(secret, user.username)));
    },

    async confirm(req: Request, res: Response) {
      const { code } = parseBody(confirmBody, req.body);
      const user = await userOf(req);
      const totp = await twoFactor.totpOf(user.id);
      if (!totp) throw new AppError(409, TOTP_NOT_SET_UP);
      if (totp.enabled) throw new AppError(409, TOTP_ALREADY_ON);
      const step = stepOfCode(totp.secret, code.trim());
      if (step === undefined) throw new AppError(400, WRONG_CODE);
      const recoveryCodes = newRecoveryCodes();
      const event = securityLog.entry(req, user.id, { type: 'totp_enabled' });
      const enabled = await twoFactor.enable(
        user.id,
        { secret: totp.secret, step, hashes: hashesOf(recoveryCodes) },
        [event],
      );
      // Another setup replaced the secret meanwhile, or another confirm turned it on.
      if (!enabled) throw new AppError(409, TOTP_NOT_SET_UP);
      res.json(messageBody(200, TOTP_ENABLED, { recoveryCodes }));
    },

    async disable(req: Request, res: Response) {
      await withPasswordAndCode(req, res, (user) => [
        ...twoFactor.disabling(user.id),
        securityLog.entry(req, user.id, { type: 'totp_disabled' }),
      ]);
      res.json(messageBody(200, TOTP_DISABLED));
    },

    async renewRecoveryCodes(req: Request, res: Response) {
      const recoveryCodes = newRecoveryCodes();
      await withPasswordAndCode(req, res, (user) => [
        ...twoFactor.renewing(user.id, hashesOf(recoveryCodes)),
        securityLog.entry(req, user.id, { type: 'recovery_codes_renewed' }),
      ]);
      res.json(messageBody(200, RECOVERY_CODES_RENEWED, { recoveryCodes }));
    },
  };
}
