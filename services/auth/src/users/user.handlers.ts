import { AppError, messageBody, StoreUnavailableError } from '@svc/common';
import { isWellFormedToken, md5Token, randomToken, readToken } from '@svc/session-guard';
import type { Request, Response } from 'express';
import type { LoginOutcome } from '../auth-metrics.js';
import type { AuthSettings } from '../config.js';
import { clientAddress } from '../http/client-address.js';
import { FOUND } from '../http/messages.js';
import { parseBody } from '../input/parse.js';
import type { SecretRepository } from '../security/secret.repository.js';
import type { SecurityLog } from '../security/security-log.js';
import type { SessionRepository } from '../sessions/session.repository.js';
import { sessionOf } from '../sessions/session-guard.js';
import type { Challenges } from '../two-factor/challenges.js';
import { hashPrintOf } from '../two-factor/hash-print.js';
import { TWO_FACTOR_REQUIRED } from '../two-factor/two-factor.messages.js';
import type { TwoFactorRepository } from '../two-factor/two-factor.repository.js';
import { DEVICE_TOKEN_HEADER, deviceOf, deviceTokenOf, newDeviceId } from './device-token.js';
import type { limitedChecks } from './limited-check.js';
import type { Counted, LoginLimiter } from './login-limiter.js';
import { burnVerification, hashPassword, verifyPassword } from './password.js';
import { passwordChange } from './password-change.js';
import { passwordRefusal } from './password-strength.js';
import { registerRetries } from './registration.js';
import type { SessionOpening } from './session-opening.js';
import { LOGGED_IN, LOGGED_OUT, REGISTERED, VERIFIED, WRONG_CREDENTIALS } from './user.messages.js';
import type { UserRepository, UserRow } from './user.repository.js';
import { loginBody, registerBody } from './user.schema.js';

/** What the user handlers work with: the data layer, the settings and a metrics hook. */
interface UserHandlerDeps {
  users: UserRepository;
  sessions: SessionRepository;
  opening: SessionOpening;
  limiter: LoginLimiter;
  limitedCheck: ReturnType<typeof limitedChecks>;
  secrets: SecretRepository;
  securityLog: SecurityLog;
  twoFactor: TwoFactorRepository;
  challenges: Challenges;
  settings: Pick<AuthSettings, 'passwordRehash'>;
  /** Told each login's outcome, for metrics. */
  onLogin?: (outcome: LoginOutcome) => void;
}

export function userHandlers(deps: UserHandlerDeps) {
  const { users, sessions, opening, limiter, limitedCheck, secrets, securityLog } = deps;
  const { twoFactor, challenges, settings, onLogin } = deps;
  const registered = registerRetries(users, limiter);

  /**
   * A failed login: logged (and the lock it may have started), counted, refused.
   * An unknown username's events are written with no user, at the same cost.
   */
  async function refuse(req: Request, user: UserRow | undefined, lockStarted: boolean) {
    const userId = user?.id ?? null;
    await securityLog.ofUser(req, userId, { type: 'login_failed' });
    if (lockStarted) await securityLog.ofUser(req, userId, { type: 'locked' });
    onLogin?.('failure');
    throw new AppError(401, WRONG_CREDENTIALS);
  }

  /** The hash stored once the login is over: a new one of the same password, or the old. */
  async function rehash(req: Request, user: UserRow, password: string): Promise<string> {
    try {
      const hash = await hashPassword(password);
      return (await users.rehash(user.id, hash, user.password)) ? hash : user.password;
    } catch (err) {
      // The login itself is good; the next one tries again.
      req.log.warn({ err, userId: user.id }, 'password rehash failed');
      return user.password;
    }
  }

  return {
    async register(req: Request, res: Response) {
      const { username, password } = parseBody(registerBody, req.body);
      const refusal = passwordRefusal(username, password);
      if (refusal) throw new AppError(400, refusal);
      const id = await users.insert(username, await hashPassword(password));
      const user = id === undefined ? await registered(req, username, password) : { id, username };
      res.json(messageBody(200, REGISTERED, user));
    },

    /*
     * A login that brings a device token of the user counts against that device
     * alone; any other counts against its (username, address) pair and the
     * username's budget across all addresses, and once that budget is spent it is
     * refused before the password is checked. An unknown username is counted and
     * refused the same way, so no answer tells whether it exists.
     */
    async login(req: Request, res: Response) {
      const { username, password } = parseBody(loginBody, req.body);
      // Before the hash is read: a password change from here on fails this login.
      const stamp = await sessions.stamp(username);
      const user = await users.findByUsername(username);
      const deviceSecret = await secrets.secret('device');
      const sentDevice = req.get(DEVICE_TOKEN_HEADER);
      const deviceId = deviceOf(deviceSecret, sentDevice, user);
      const counted: Counted = deviceId
        ? { deviceId }
        : { address: clientAddress(req), account: true };
      const device = deviceId ?? newDeviceId();
      const { verdict, lockStarted } = await limitedCheck(
        req,
        res,
        username,
        counted,
        async () =>
          user
            ? { ...(await verifyPassword(password, user.password)), pending: user.totp }
            : burnVerification(password).then(() => ({ ok: false, needsRehash: false })),
        device,
      ).catch((err) => {
        if (err instanceof AppError && err.status === 429) onLogin?.('locked');
        throw err;
      });
      if (!user || !verdict.ok) return refuse(req, user, lockStarted);

      const stored =
        verdict.needsRehash && settings.passwordRehash
          ? await rehash(req, user, password)
          : user.password;
      const md5 = sessions.scheme === 'md5' ? md5Token(user.username, password) : undefined;
      if (user.totp) {
        const login = { userId: user.id, username: user.username, counted, device };
        const challenge = await challenges.create({
          ...login,
          newDevice: !deviceId,
          hashPrint: hashPrintOf(stored),
          ...(md5 === undefined ? {} : { token: md5 }),
        });
        res.json(messageBody(200, TWO_FACTOR_REQUIRED, { twoFactor: 'totp', challenge }));
        return;
      }
      const token = md5 ?? randomToken();
      // Signed over the hash stored now: the device's token of the password it logged in with.
      const deviceToken = deviceTokenOf(deviceSecret, { id: user.id, password: stored }, device);
      const session = await opening.open(req, user.username, token, stamp);
      // null: the password changed while this login checked the old one.
      if (session === null) return refuse(req, user, false);
      await opening.commit(token, user.username, () =>
        securityLog.ofUser(req, user.id, {
          type: 'login',
          newDevice: !deviceId,
          sessionId: session.id,
        }),
      );
      await opening.trim(req, token, user.username);
      onLogin?.('success');
      res.json(messageBody(200, LOGGED_IN, { token, expiresIn: session.expiresIn, deviceToken }));
    },

    async status(req: Request, res: Response) {
      const token = readToken(req.headers);
      const session =
        token !== undefined && isWellFormedToken(sessions.scheme, token)
          ? await sessions.find(token)
          : null;
      const data = session
        ? { loggedIn: true, username: session.username, expiresIn: session.expiresIn }
        : { loggedIn: false };
      res.json(messageBody(200, FOUND, data));
    },

    async me(req: Request, res: Response) {
      const { username } = sessionOf(req);
      // The session lives in Redis: MySQL down, it is still live, and whether TOTP is on unknown.
      const totp = await twoFactor.isOn(username).catch((err: unknown) => {
        if (!(err instanceof StoreUnavailableError)) throw err;
        req.log.warn({ err }, 'reading whether TOTP is on failed');
        return null;
      });
      res.json(messageBody(200, FOUND, { username, totp }));
    },

    /** The guard's verdict for a proxy: the owner also in X-Auth-User, for the upstream. */
    verify(req: Request, res: Response) {
      const { username } = sessionOf(req);
      res.set('X-Auth-User', encodeURIComponent(username));
      res.json(messageBody(200, VERIFIED, { username }));
    },

    async logout(req: Request, res: Response) {
      const { token, username } = sessionOf(req);
      await securityLog.ending(req, username, { type: 'session_ended' }, () =>
        sessions.revoke(token, username),
      );
      res.json(messageBody(200, LOGGED_OUT));
    },

    changePassword: passwordChange({ users, sessions, securityLog, limitedCheck }),
  };
}
