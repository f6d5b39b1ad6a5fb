import type { ResponseDoc } from '@svc/common';
import { z } from 'zod';
import {
  bodyParserFailures,
  failure,
  guardedFailures,
  guardedWriteFailures,
  guardFailure,
  invalidBody,
  storeUnavailable,
  strayBody,
  success,
  TOKEN_OPTIONAL,
  writeUnavailable,
} from '../api-docs/responses.docs.js';
import { FOUND } from '../http/messages.js';
import type { AuthRoute } from '../http/routes.js';
import type { userHandlers } from './user.handlers.js';
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
import {
  DEVICE_TOKEN,
  deviceTokenHeader,
  issuedToken,
  SESSION_TOKEN,
  sessionStatus,
  username,
} from './user.replies.js';
import { changePasswordBody, loginBody, registerBody } from './user.schema.js';

/** The login limiter's lock; `Retry-After` says for how long. */
const locked: ResponseDoc = {
  ...failure(
    'Too many failed attempts: for this username from this client address, for this username from ' +
      'every address (ACCOUNT_MAX_FAILURES, logins without a device token of its user), or with this ' +
      'device token. Locked, even for the right password; the same answer whether the username exists or not.',
    429,
    TOO_MANY_FAILURES,
  ),
  headers: {
    'Retry-After': {
      description: 'Seconds until the lock ends.',
      schema: z.int().positive(),
    },
  },
};

/** The user routes: method, path, middleware, handler and document. */
export const userRoutes: AuthRoute<ReturnType<typeof userHandlers>>[] = [
  {
    method: 'post',
    path: '/api/user/register',
    handler: (h) => h.register,
    summary: 'Create an account',
    tags: ['user'],
    body: registerBody,
    bodyExample: { username: 'alice', password: 'correct-horse' },
    responses: {
      200: success('The account exists.', REGISTERED, {
        schema: z.strictObject({ id: z.int().positive(), username }),
        example: { id: 1, username: 'alice' },
      }),
      400: invalidBody(registerBody, [{ username: 'a', password: 'correct-horse' }]),
      409: failure('The username is taken, in any letter case.', 409, USERNAME_TAKEN),
      ...bodyParserFailures,
      503: writeUnavailable,
    },
  },
  {
    method: 'post',
    path: '/api/user/login',
    handler: (h) => h.login,
    summary: 'Log in and get a session token',
    tags: ['user'],
    headers: deviceTokenHeader,
    body: loginBody,
    bodyExample: { username: 'alice', password: 'correct-horse' },
    responses: {
      200: success('A new session; send its token as `Authorization: Bearer <token>`.', LOGGED_IN, {
        schema: issuedToken,
        example: { token: SESSION_TOKEN, expiresIn: 3600, deviceToken: DEVICE_TOKEN },
      }),
      400: invalidBody(loginBody, [{ username: 'alice' }]),
      401: failure('Unknown username or wrong password.', 401, WRONG_CREDENTIALS),
      ...bodyParserFailures,
      429: locked,
      503: writeUnavailable,
    },
  },
  {
    method: 'get',
    path: '/api/user/status',
    handler: (h) => h.status,
    summary: 'Whether the request carries a live session',
    tags: ['user'],
    security: TOKEN_OPTIONAL,
    responses: {
      200: success('`loggedIn: false` without a token or without a live session.', FOUND, {
        schema: sessionStatus,
        example: { loggedIn: true, username: 'alice', expiresIn: 3597 },
      }),
      400: strayBody,
      ...bodyParserFailures,
      503: storeUnavailable,
    },
  },
  {
    method: 'get',
    path: '/api/user/me',
    handler: (h) => h.me,
    summary: 'The owner of the session',
    tags: ['user'],
    guard: true,
    responses: {
      200: success('The session is live.', FOUND, {
        schema: z.strictObject({ username }),
        example: { username: 'alice' },
      }),
      ...guardedFailures,
    },
  },
  {
    method: 'get',
    path: '/api/user/verify',
    handler: (h) => h.verify,
    summary: 'Forward auth: the guard as a route, for nginx auth_request and services not on Node',
    tags: ['user'],
    guard: true,
    responses: {
      200: {
        ...success('The session is live; X-Auth-User names its owner.', VERIFIED, {
          schema: z.strictObject({ username }),
          example: { username: 'alice' },
        }),
        headers: {
          'X-Auth-User': {
            description: "the session's owner, percent-encoded UTF-8",
            schema: z.string(),
          },
        },
      },
      ...guardedFailures,
    },
  },
  {
    method: 'post',
    path: '/api/user/logout',
    handler: (h) => h.logout,
    summary: 'End the session of this token',
    tags: ['user'],
    guard: true,
    responses: {
      200: success('The session has ended.', LOGGED_OUT),
      ...guardedWriteFailures,
    },
  },
  {
    method: 'post',
    path: '/api/user/change-password',
    handler: (h) => h.changePassword,
    summary: "Change the password and end the user's sessions",
    tags: ['user'],
    guard: true,
    body: changePasswordBody,
    bodyExample: { oldPassword: 'correct-horse', newPassword: 'battery-staple' },
    responses: {
      200: success('Changed; log in again with the new password.', PASSWORD_CHANGED),
      400: invalidBody(
        changePasswordBody,
        [{ oldPassword: 'correct-horse', newPassword: 'short' }],
        WRONG_OLD_PASSWORD,
      ),
      401: guardFailure,
      ...bodyParserFailures,
      429: locked,
      503: writeUnavailable,
    },
  },
];
