import type { ResponseDoc } from '@svc/common';
import { z } from 'zod';
import { failure } from '../api-docs/responses.docs.js';
import { TOO_MANY_FAILURES } from './user.messages.js';

/** The user routes' answers and headers as the document shows them. */

/** The login's device token, as the login answers it. */
const deviceTokenField = z
  .string()
  .regex(/^[A-Za-z0-9_-]{50}$/)
  .describe(
    'Names this user and this device, signed by the service: send it back as `X-Device-Token` ' +
      'on later logins. The one sent when it was valid, else a new one.',
  );

export const DEVICE_TOKEN = 'AQAAAAFkZXZpY2Utb2YtYWxpY2UhkHwIAK_kyxJDu32n0VolRA';

/** The login's optional header. */
export const deviceTokenHeader = z.object({
  'X-Device-Token': z
    .string()
    .optional()
    .describe(
      'The `deviceToken` of an earlier login of this user on this device. With a valid one the ' +
        "login counts against this device alone and is let in while the username's budget across " +
        'addresses is spent; a forged, altered or other user’s token counts as none.',
    ),
});

export const username = z.string().describe('The stored spelling of the username.');

const loggedIn = z.strictObject({
  loggedIn: z.literal(true),
  username,
  expiresIn: z.int().describe('Seconds until the session ends.'),
});
const loggedOut = z.strictObject({ loggedIn: z.literal(false) });

/** The data of status: the session, or only that there is none. */
export const sessionStatus = z.discriminatedUnion('loggedIn', [loggedIn, loggedOut]).meta({
  examples: [{ loggedIn: true, username: 'alice', expiresIn: 3597 }, { loggedIn: false }],
});

/** The data of login. */
export const issuedToken = z.strictObject({
  token: z
    .string()
    .regex(/^[0-9a-f]{32}(?:[0-9a-f]{32})?$/)
    .describe('64 hex characters (TOKEN_SCHEME=random) or 32 (TOKEN_SCHEME=md5).'),
  expiresIn: z.int().positive().describe('The session lifetime in seconds (TOKEN_TTL).'),
  deviceToken: deviceTokenField,
});

/** An example session token. */
export const SESSION_TOKEN = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

/** The data of a login whose user has TOTP on: no token yet, a challenge for the second step. */
export const twoFactorChallenge = z.strictObject({
  twoFactor: z.literal('totp'),
  challenge: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe(
      'Send it with a code to POST /api/user/login/2fa, within TWO_FACTOR_CHALLENGE_SECONDS and 5 tries.',
    ),
});

/** The login limiter's lock; `Retry-After` says for how long. */
export const locked: ResponseDoc = {
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
