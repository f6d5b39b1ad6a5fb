import { AppError, messageBody, StoreUnavailableError } from '@svc/common';
import type { Request, RequestHandler, Response } from 'express';
import type { AuthSettings } from '../config.js';
import { INVALID_TOKEN_MESSAGE } from '../guard/create-guard.js';
import { readToken } from '../guard/read-token.js';
import type { SessionStore } from '../sessions/session-store.js';
import { isWellFormedToken, md5Token, randomToken } from '../sessions/token.js';
import type { LoginLimiter } from './login-limiter.js';
import { burnVerification, hashPassword, verifyPassword } from './password.js';
import {
  FOUND,
  LOGGED_IN,
  LOGGED_OUT,
  PASSWORD_CHANGED,
  REGISTERED,
  TOO_MANY_FAILURES,
  USERNAME_TAKEN,
  WRONG_CREDENTIALS,
  WRONG_OLD_PASSWORD,
} from './user.messages.js';
import type { UserRepository, UserRow } from './user.repository.js';
import { changePasswordBody, loginBody, parseBody, registerBody } from './user.schema.js';

export interface UserHandlerDeps {
  users: UserRepository;
  sessions: SessionStore;
  limiter: LoginLimiter;
  settings: Pick<AuthSettings, 'tokenTtl' | 'passwordRehash'>;
}

/** Any Redis failure is an outage to the client: 503, never a 401. */
async function redis<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (err) {
    throw new StoreUnavailableError('redis', err);
  }
}

function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** The guard ran before these handlers, so the request has its session. */
function sessionOf(req: Request): { token: string; username: string } {
  return { token: req.token as string, username: req.user?.username as string };
}

export type UserHandlers = Record<
  'register' | 'login' | 'status' | 'me' | 'logout' | 'changePassword',
  RequestHandler
>;

export function createUserHandlers({
  users,
  sessions,
  limiter,
  settings,
}: UserHandlerDeps): UserHandlers {
  /** Counts the attempt; a locked pair answers 429 whatever the password. */
  async function admit(req: Request, res: Response, username: string): Promise<void> {
    const admission = await redis(limiter.attempt(username, clientAddress(req)));
    if (admission.allowed) return;
    res.setHeader('Retry-After', String(admission.retryAfter));
    throw new AppError(429, TOO_MANY_FAILURES);
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
    const user = await users.findByUsername(username);
    await admit(req, res, username);
    const verdict = user
      ? await verifyPassword(password, user.password)
      : await burnVerification(password).then(() => ({ ok: false, needsRehash: false }));
    if (!user || !verdict.ok) throw new AppError(401, WRONG_CREDENTIALS);

    await redis(limiter.reset(username, clientAddress(req)));
    if (verdict.needsRehash && settings.passwordRehash) await rehash(req, user, password);
    const token = sessions.scheme === 'md5' ? md5Token(user.username, password) : randomToken();
    await redis(sessions.create(token, user.username, settings.tokenTtl));
    res.json(messageBody(200, LOGGED_IN, { token, expiresIn: settings.tokenTtl }));
  };

  const status: RequestHandler = async (req, res) => {
    const token = readToken(req.headers);
    const session =
      token !== undefined && isWellFormedToken(sessions.scheme, token)
        ? await redis(sessions.find(token))
        : null;
    const data = session
      ? { loggedIn: true, username: session.username, expiresIn: session.expiresIn }
      : { loggedIn: false };
    res.json(messageBody(200, FOUND, data));
  };

  const me: RequestHandler = (req, res) => {
    res.json(messageBody(200, FOUND, { username: sessionOf(req).username }));
  };

  const logout: RequestHandler = async (req, res) => {
    const { token, username } = sessionOf(req);
    await redis(sessions.revoke(token, username));
    res.json(messageBody(200, LOGGED_OUT));
  };

  const changePassword: RequestHandler = async (req, res) => {
    const { oldPassword, newPassword } = parseBody(changePasswordBody, req.body);
    const { token, username } = sessionOf(req);
    await admit(req, res, username);
    const user = await users.findByUsername(username);
    if (!user) {
      // The account is gone; so is the point of its session.
      await redis(sessions.revoke(token, username));
      throw new AppError(401, INVALID_TOKEN_MESSAGE);
    }
    const verdict = await verifyPassword(oldPassword, user.password);
    if (!verdict.ok) throw new AppError(400, WRONG_OLD_PASSWORD);

    await redis(limiter.reset(username, clientAddress(req)));
    await users.updatePassword(user.id, await hashPassword(newPassword));
    await redis(sessions.revokeAll(user.username, token));
    res.json(messageBody(200, PASSWORD_CHANGED));
  };

  return { register, login, status, me, logout, changePassword };
}
