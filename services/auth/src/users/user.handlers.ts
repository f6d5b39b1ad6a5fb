import { AppError } from '@svc/common';
import {
  INVALID_TOKEN_MESSAGE,
  isWellFormedToken,
  md5Token,
  randomToken,
  readToken,
} from '@svc/session-guard';
import type { Request, RequestHandler, Response } from 'express';
import type { LoginOutcome } from '../auth-metrics.js';
import type { AuthSettings } from '../config.js';
import { messageBody } from '../http/envelope.js';
import { FOUND } from '../http/messages.js';
import { parseBody } from '../input/parse.js';
import type { SessionRepository } from '../sessions/session.repository.js';
import { sessionOf } from '../sessions/session-guard.js';
import type { LoginLimiter, Slot } from './login-limiter.js';
import { burnVerification, hashPassword, verifyPassword } from './password.js';
import {
  LOGGED_IN,
  LOGGED_OUT,
  PASSWORD_CHANGED,
  REGISTERED,
  TOO_MANY_FAILURES,
  USERNAME_TAKEN,
  VERIFIED,
  WRONG_CREDENTIALS,
  WRONG_OLD_PASSWORD,
} from './user.messages.js';
import type { UserRepository, UserRow } from './user.repository.js';
import { changePasswordBody, loginBody, registerBody } from './user.schema.js';

/** What the user handlers work with: the data layer, the settings and a metrics hook. */
export interface UserHandlerDeps {
  users: UserRepository;
  sessions: SessionRepository;
  limiter: LoginLimiter;
  settings: Pick<AuthSettings, 'tokenTtl' | 'passwordRehash'>;
  /** Told each login's outcome, for metrics. */
  onLogin?: (outcome: LoginOutcome) => void;
}

function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

type UserHandlers = Record<
  'register' | 'login' | 'status' | 'me' | 'verify' | 'logout' | 'changePassword',
  RequestHandler
>;

export function userHandlers({
  users,
  sessions,
  limiter,
  settings,
  onLogin,
}: UserHandlerDeps): UserHandlers {
  /** A slot for one password check; a locked pair answers 429 whatever the password. */
  async function admit(req: Request, res: Response, username: string): Promise<Slot> {
    const admission = await limiter.admit(
      username,
      clientAddress(req),
      () => !req.socket.destroyed,
    );
    if (admission.outcome === 'admitted') return admission.slot;
    res.setHeader('Retry-After', String(admission.retryAfter));
    throw new AppError(429, TOO_MANY_FAILURES);
  }

  /** Runs a password check in a limiter slot, and records how it went. */
  async function limitedCheck<T extends { ok: boolean }>(
    req: Request,
    res: Response,
    username: string,
    check: () => Promise<T>,
  ): Promise<T> {
    const slot = await admit(req, res, username);
    let verdict: T;
    try {
      verdict = await check();
    } catch (err) {
      await limiter.settle(slot, 'abandoned').catch(() => {});
      throw err;
    }
    await limiter.settle(slot, verdict.ok ? 'succeeded' : 'failed');
    return verdict;
  }

  async function rehash(req: Request, user: UserRow, password: string): Promise<void> {
    try {
      await users.updatePassword(user.id, await hashPassword(password), user.password);
    } catch (err) {
      // The login itself is good; the next one tries again.
      req.log.warn({ err, userId: user.id }, 'password rehash failed');
    }
  }

  const register: RequestHandler = async (req, res) => {
    const { username, password } = parseBody(registerBody, req.body);
    const id = await users.insert(username, await hashPassword(password));
    if (id === undefined) throw new AppError(409, USERNAME_TAKEN);
    res.json(messageBody(200, REGISTERED, { id, username }));
  };

  const login: RequestHandler = async (req, res) => {
    const { username, password } = parseBody(loginBody, req.body);
    // Before the hash is read: a password change from here on fails this login.
    const stamp = await sessions.stamp(username);
    const user = await users.findByUsername(username);
    const verdict = await limitedCheck(req, res, username, () =>
      user
        ? verifyPassword(password, user.password)
        : burnVerification(password).then(() => ({ ok: false, needsRehash: false })),
    ).catch((err) => {
      if (err instanceof AppError && err.status === 429) onLogin?.('locked');
      throw err;
    });
    if (!user || !verdict.ok) {
      onLogin?.('failure');
      throw new AppError(401, WRONG_CREDENTIALS);
    }

    if (verdict.needsRehash && settings.passwordRehash) await rehash(req, user, password);
    const token = sessions.scheme === 'md5' ? md5Token(user.username, password) : randomToken();
    const expiresIn = await sessions.create(token, user.username, settings.tokenTtl, req, stamp);
    if (expiresIn === null) {
      // The password changed while this login checked the old one.
      onLogin?.('failure');
      throw new AppError(401, WRONG_CREDENTIALS);
    }
    onLogin?.('success');
    res.json(messageBody(200, LOGGED_IN, { token, expiresIn }));
  };

  const status: RequestHandler = async (req, res) => {
    const token = readToken(req.headers);
    const session =
      token !== undefined && isWellFormedToken(sessions.scheme, token)
        ? await sessions.find(token)
        : null;
    const data = session
      ? { loggedIn: true, username: session.username, expiresIn: session.expiresIn }
      : { loggedIn: false };
    res.json(messageBody(200, FOUND, data));
  };

  const me: RequestHandler = (req, res) => {
    res.json(messageBody(200, FOUND, { username: sessionOf(req).username }));
  };

  /** The guard's verdict for a proxy: the owner also in X-Auth-User, for the upstream. */
  const verify: RequestHandler = (req, res) => {
    const { username } = sessionOf(req);
    res.set('X-Auth-User', encodeURIComponent(username));
    res.json(messageBody(200, VERIFIED, { username }));
  };

  const logout: RequestHandler = async (req, res) => {
    const { token, username } = sessionOf(req);
    await sessions.revoke(token, username);
    res.json(messageBody(200, LOGGED_OUT));
  };

  const changePassword: RequestHandler = async (req, res) => {
    const { oldPassword, newPassword } = parseBody(changePasswordBody, req.body);
    const { token, username } = sessionOf(req);
    const user = await users.findByUsername(username);
    if (!user) {
      // The account is gone; so is the point of its session.
      await sessions.revoke(token, username);
      throw new AppError(401, INVALID_TOKEN_MESSAGE);
    }
    const verdict = await limitedCheck(req, res, username, () =>
      verifyPassword(oldPassword, user.password),
    );
    if (!verdict.ok) throw new AppError(400, WRONG_OLD_PASSWORD);

    await users.updatePassword(user.id, await hashPassword(newPassword));
    // md5: the old password's token, which a racing login would write again.
    const oldToken = sessions.scheme === 'md5' ? md5Token(user.username, oldPassword) : undefined;
    await sessions.endAllForNewPassword(user.username, token, oldToken);
    res.json(messageBody(200, PASSWORD_CHANGED));
  };

  return { register, login, status, me, verify, logout, changePassword };
}
