import type { ResponseDoc } from '@svc/common';
import { z } from 'zod';
import {
  bodyParserFailures,
  envelope,
  failure,
  guardedWriteFailures,
  invalidBody,
  strayBody,
  success,
  writeUnavailable,
} from '../api-docs/responses.docs.js';
import type { AuthRoute } from '../http/routes.js';
import { LOGGED_IN } from '../users/user.messages.js';
import { DEVICE_TOKEN, issuedToken, locked, SESSION_TOKEN } from '../users/user.replies.js';
import { CHALLENGE_TRIES } from './challenges.js';
import type { twoFactorHandlers } from './two-factor.handlers.js';
import {
  CHALLENGE_GONE,
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
import { confirmBody, passwordAndCodeBody, secondStepBody } from './two-factor.schema.js';

const recoveryCodes = {
  schema: z.strictObject({
    recoveryCodes: z
      .array(z.string().regex(/^[0-9A-Z]{4}(?:-[0-9A-Z]{4}){3}$/))
      .length(10)
      .describe(
        'Shown this once: each logs in once in place of a code. Only their hashes are kept.',
      ),
  }),
  example: {
    recoveryCodes: [
      '7KQ2-M9XD-4TVA-0PBN',
      'H3WZ-8C1R-QE6F-JY5M',
      '2NDV-T7KP-X0GA-9SHC',
      'R4MB-6YQJ-1ZWE-8FTD',
      'C9XH-3PAN-5KVR-M2QG',
      'Z1FE-Q8TM-W6DB-4JCY',
      '6PGS-N2HX-0RKA-7VEQ',
      'JD5T-C4WY-9MFZ-3NBH',
      '0AVQ-X7RE-K2PG-T6SM',
      'W8CN-5HJD-Y3ZF-1QKB',
    ],
  },
};

const EXAMPLE_CODE = { code: '492039' };
const EXAMPLE_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** Setup takes no body: its 400 is md5's refusal, or a stray body's. */
const setupRefused: ResponseDoc = {
  description: `\`${NOT_UNDER_MD5}\` under TOKEN_SCHEME=md5; or ${strayBody.description}`,
  schema: envelope(400, z.union([z.literal(NOT_UNDER_MD5), z.string().regex(/\bbody\b/)])),
  example: { code: 400, message: NOT_UNDER_MD5 },
};

const notOn = failure('TOTP is not on for this account.', 409, TOTP_NOT_ON);

/** The second factor's routes: method, path, middleware, handler and document. */
export const twoFactorRoutes: AuthRoute<ReturnType<typeof twoFactorHandlers>>[] = [
  {
    method: 'post',
    path: '/api/user/2fa/totp/setup',
    handler: (h) => h.setup,
    summary: 'A new TOTP secret to confirm (RFC 6238: SHA-1, 6 digits, 30 s)',
    tags: ['two-factor'],
    guard: true,
    responses: {
      200: success('Waiting for a code of it: POST /api/user/2fa/totp/confirm.', TOTP_SET_UP, {
        schema: z.strictObject({
          secret: z.string().describe('The secret in base32, for typing into an app.'),
          uri: z.string().describe('Its otpauth://totp/ URI.'),
          qrCode: z.string().describe('The URI as a QR code, an SVG document.'),
        }),
        example: {
          secret: EXAMPLE_SECRET,
          uri: `otpauth://totp/Judge:alice?issuer=Judge&secret=${EXAMPLE_SECRET}&algorithm=SHA1&digits=6&period=30`,
          qrCode: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 41 41">…</svg>',
        },
      }),
      ...guardedWriteFailures,
      400: setupRefused,
      409: failure('TOTP is on already: turn it off first.', 409, TOTP_ALREADY_ON),
    },
  },
  {
    method: 'post',
    path: '/api/user/2fa/totp/confirm',
    handler: (h) => h.confirm,
    summary: 'Turn TOTP on with a code of the secret set up; answers ten recovery codes',
    tags: ['two-factor'],
    guard: true,
    body: confirmBody,
    bodyExample: EXAMPLE_CODE,
    responses: {
      200: success('TOTP is on: logins take a second step.', TOTP_ENABLED, recoveryCodes),
      ...guardedWriteFailures,
      400: invalidBody(confirmBody, [{}], [WRONG_CODE]),
      409: failure(
        'No secret is waiting (none set up, or another setup replaced it), or TOTP is on already.',
        409,
        [TOTP_NOT_SET_UP, TOTP_ALREADY_ON],
      ),
    },
  },
  {
    method: 'post',
    path: '/api/user/2fa/totp/disable',
    handler: (h) => h.disable,
    summary: 'Turn TOTP off, with the password and a current code (or a recovery code)',
    tags: ['two-factor'],
    guard: true,
    body: passwordAndCodeBody,
    bodyExample: { password: 'correct-horse', ...EXAMPLE_CODE },
    responses: {
      200: success('TOTP is off; the recovery codes are gone.', TOTP_DISABLED),
      ...guardedWriteFailures,
      400: invalidBody(passwordAndCodeBody, [{ password: 'x' }], [WRONG_PASSWORD_OR_CODE]),
      409: notOn,
      429: locked,
    },
  },
  {
    method: 'post',
    path: '/api/user/2fa/recovery-codes',
    handler: (h) => h.renewRecoveryCodes,
    summary: 'Ten new recovery codes in place of the old, with the password and a current code',
    tags: ['two-factor'],
    guard: true,
    body: passwordAndCodeBody,
    bodyExample: { password: 'correct-horse', ...EXAMPLE_CODE },
    responses: {
      200: success('The old codes are ended.', RECOVERY_CODES_RENEWED, recoveryCodes),
      ...guardedWriteFailures,
      400: invalidBody(passwordAndCodeBody, [{ code: '1' }], [WRONG_PASSWORD_OR_CODE]),
      409: notOn,
      429: locked,
    },
  },
  {
    method: 'post',
    path: '/api/user/login/2fa',
    handler: (h) => h.secondStep,
    summary: "A login's second step: its challenge and a TOTP code or a recovery code",
    tags: ['user'],
    body: secondStepBody,
    bodyExample: { challenge: 'a'.repeat(64), ...EXAMPLE_CODE },
    responses: {
      200: success('A new session, as a login answers it.', LOGGED_IN, {
        schema: issuedToken,
        example: { token: SESSION_TOKEN, expiresIn: 3600, deviceToken: DEVICE_TOKEN },
      }),
      400: invalidBody(secondStepBody, [{ challenge: 'x', code: '1' }]),
      401: failure(
        `A wrong, spent or expired code (counted as a wrong password is); or the challenge is ` +
          `unknown, expired (TWO_FACTOR_CHALLENGE_SECONDS), used up (${CHALLENGE_TRIES} tries) ` +
          'or ended by a password change: log in again.',
        401,
        [WRONG_CODE, CHALLENGE_GONE],
      ),
      ...bodyParserFailures,
      429: locked,
      503: writeUnavailable,
    },
  },
];
