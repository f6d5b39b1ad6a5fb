import { z } from 'zod';
import {
  bodyParserFailures,
  envelope,
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
import { TWO_FACTOR_REQUIRED } from '../two-factor/two-factor.messages.js';
import type { userHandlers } from './user.handlers.js';
import {
  LOGGED_IN,
  LOGGED_OUT,
  NEW_PASSWORD_REFUSALS,
  PASSWORD_CHANGED,
  REGISTERED,
  USERNAME_TAKEN,
  VERIFIED,
  WRONG_CREDENTIALS,
  WRONG_OLD_PASSWORD,
} from './user.messages.js';
import {
  DEVICE_TOKEN,
  deviceTokenHeader,
  issuedToken,
  locked,
  SESSION_TOKEN,
  sessionStatus,
  twoFactorChallenge,
  username,
} from './user.replies.js';
import { changePasswordBody, loginBody, registerBody } from './user.schema.js';

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
      400: invalidBody(
        registerBody,
        [{ username: 'a', password: 'correct-horse' }],
        NEW_PASSWORD_REFUSALS,
      ),
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
      200: {
        description:
          'A new session; send its token as `Authorization: Bearer <token>`. For a user with TOTP ' +
          'on, no token yet: a challenge for POST /api/user/login/2fa.',
        schema: z.union([
          envelope(200, z.literal(LOGGED_IN), issuedToken),
          envelope(200, z.literal(TWO_FACTOR_REQUIRED), twoFactorChallenge),
        ]),
        example: {
          code: 200,
          message: LOGGED_IN,
          data: { token: SESSION_TOKEN, expiresIn: 3600, deviceToken: DEVICE_TOKEN },
        },
      },
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
        schema: z.strictObject({
          username,
          totp: z
            .boolean()
            .nullable()
            .describe(
              'Whether TOTP is on (logins take a second step); null while MySQL does not answer: the session is live either way.',
            ),
        }),
        example: { username: 'alice', totp: false },
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
        [WRONG_OLD_PASSWORD, ...NEW_PASSWORD_REFUSALS],
      ),
      401: guardFailure,
      ...bodyParserFailures,
      429: locked,
      503: writeUnavailable,
    },
  },
];
