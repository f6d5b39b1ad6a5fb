import { AppError, messageBody } from '@svc/common';
import {
  INVALID_TOKEN_MESSAGE,
  isWellFormedToken,
  md5Token,
  randomToken,
  readToken,
} from '@svc/session-guard';
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
import { DEVICE_TOKEN_HEADER, deviceOf, newDeviceToken } from './device-token.js';
import { limitedChecks } from './limited-check.js';
import type { Counted, LoginLimiter } from './login-limiter.js';
import { burnVerification, hashPassword, verifyPassword } from './password.js';
import {
  LOGGED_IN,
  LOGGED_OUT,
  PASSWORD_CHANGED,
  REGISTERED,
  USERNAME_TAKEN,
  VERIFIED,
  WRONG_CREDENTIALS,
  WRONG_OLD_PASSWORD,
} from './user.messages.js';
import type { UserRepository, UserRow } from './user.repository.js';
import { changePasswordBody, loginBody, registerBody } from './user.schema.js';

/** What the user handlers work with: the data layer, the settings and a metrics hook. */
interface UserHandlerDeps {
  users: UserRepository;
  sessions: SessionRepository;
  limiter: LoginLimiter;
  secrets: SecretRepository;
  securityLog: SecurityLog;
  settings: Pick<AuthSettings, 'tokenTtl' | 'passwordRehash'>;
  /** Told each login's outcome, for metrics. */
  onLogin?: (outcome: LoginOutcome) => void;
  /** Told of each password check the limiter admitted, for metrics. */
  onPasswordCheck?: () => void;
}

export function userHandlers({
  users,
  sessions,
  limiter,
  secrets,
  securityLog,
  settings,
  onLogin,
  onPasswordCheck,
}: UserHandlerDeps) {
  const limitedCheck = limitedChecks(limiter, onPasswordCheck);

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

  async function rehash(req: Request, user: UserRow, password: string): Promise<void> {
    try {
      await users.updatePassword(user.id, await hashPassword(password), user.password);
    } catch (err) {
      // The login itself is good; the next one tries again.
      req.log.warn({ err, userId: user.id }, 'password rehash failed');
    }
  }

  return {
    async register(req: Request, res: Response) {
      const { username, password } = parseBody(registerBody, req.body);
      const id = await users.insert(username, await hashPassword(password));
      if (id === undefined) throw new AppError(409, USERNAME_TAKEN);
      res.json(messageBody(200, REGISTERED, { id, username }));
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
      const deviceId = deviceOf(deviceSecret, sentDevice, user?.id);
      const counted: Counted = deviceId
        ? { deviceId }
        : { address: clientAddress(req), account: true };
      const { verdict, lockStarted } = await limitedCheck(req, res, username, counted, () =>
        user
          ? verifyPassword(password, user.password)
          : burnVerification(password).then(() => ({ ok: false, needsRehash: false })),
      ).catch((err) => {
        if (err instanceof AppError && err.status === 429) onLogin?.('locked');
        throw err;
      });
      if (!user || !verdict.ok) return refuse(req, user, lockStarted);

      if (verdict.needsRehash && settings.passwordRehash) await rehash(req, user, password);
      const token = sessions.scheme === 'md5' ? md5Token(user.username, password) : randomToken();
      const deviceToken =
        deviceId && sentDevice ? sentDevice : newDeviceToken(deviceSecret, user.id);
      const session = await sessions.create(token, user.username, settings.tokenTtl, req, stamp);
      // null: the password changed while this login checked the old one.
      if (session === null) return refuse(req, user, false);
      // After the session, so the log never shows a login that its answer refused.
      await securityLog.ofUser(req, user.id, {
        type: 'login',
        newDevice: !deviceId,
        sessionId: session.id,
      });
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

    me(req: Request, res: Response) {
      res.json(messageBody(200, FOUND, { username: sessionOf(req).username }));
    },

    /** The guard's verdict for a proxy: the owner also in X-Auth-User, for the upstream. */
    verify(req: Request, res: Response) {
      const { username } = sessionOf(req);
      res.set('X-Auth-User', encodeURIComponent(username));
      res.json(messageBody(200, VERIFIED, { username }));
    },

    async logout(req: Request, res: Response) {
      const { token, username } = sessionOf(req);
      await sessions.revoke(token, username);
      await securityLog.ofUsername(req, username, { type: 'session_ended' });
      res.json(messageBody(200, LOGGED_OUT));
    },

    async changePassword(req: Request, res: Response) {
      const { oldPassword, newPassword } = parseBody(changePasswordBody, req.body);
      const { token, username } = sessionOf(req);
      const user = await users.findByUsername(username);
      if (!user) {
        // The account is gone; so is the point of its session.
        await sessions.revoke(token, username);
        throw new AppError(401, INVALID_TOKEN_MESSAGE);
      }
      const { verdict, lockStarted } = await limitedCheck(
        req,
        res,
        username,
        { address: clientAddress(req) },
        () => verifyPassword(oldPassword, user.password),
      );
      if (!verdict.ok) {
        if (lockStarted) await securityLog.ofUser(req, user.id, { type: 'locked' });
        throw new AppError(400, WRONG_OLD_PASSWORD);
      }

      await users.updatePassword(user.id, await hashPassword(newPassword));
      // md5: the old password's token, which a racing login would write again.
      const oldToken = sessions.scheme === 'md5' ? md5Token(user.username, oldPassword) : undefined;
      await sessions.endAllForNewPassword(user.username, token, oldToken);
      await securityLog.ofUser(req, user.id, { type: 'password_changed' });
      res.json(messageBody(200, PASSWORD_CHANGED));
    },
  };
}
