import { AppError, type ResponseDoc } from '@svc/common';
import { INVALID_TOKEN_MESSAGE, NO_TOKEN_MESSAGE } from '@svc/session-guard';
import { z } from 'zod';
import { envelope, failure, NOT_JSON, namingOneOf } from '../http/response-docs.js';
import { TOO_MANY_FAILURES } from './user.messages.js';
import { parseBody } from './user.schema.js';

export const username = z.string().describe('The stored spelling of the username.');

/** What the real validator answers for a bad body, so the examples cannot drift. */
function rejection(schema: z.ZodObject, body: unknown): string {
  try {
    parseBody(schema, body);
  } catch (err) {
    if (err instanceof AppError) return err.message;
    throw err;
  }
  throw new Error(`example body passes validation: ${JSON.stringify(body)}`);
}

/** The 400 of a bad body, as `parseBody` words it; `also`: a 400 of the route's own. */
export function invalidBody(schema: z.ZodObject, badBodies: unknown[], also?: string): ResponseDoc {
  const validation = namingOneOf(Object.keys(schema.shape));
  const examples = [
    ...(also ? [also] : []),
    ...badBodies.map((body) => rejection(schema, body)),
    rejection(schema, []),
    NOT_JSON,
  ];
  const message = also ? z.union([z.literal(also), validation]) : validation;
  return {
    description:
      (also ? `\`${also}\`; or ` : '') +
      'the body is not JSON, not an object, or a field is missing, mistyped or breaks a rule: ' +
      'the message names the field by its JSON key (`body` for the body as a whole).',
    schema: envelope(400, message.meta({ examples })),
    example: { code: 400, message: examples[0] },
  };
}

/**
 * The JSON parser runs before every route, so a route that takes no body still
 * refuses a body sent as JSON that is not JSON; the message names `body`.
 */
export const strayBody: ResponseDoc = {
  description:
    'The route takes no body, but a body sent with a JSON content type must be JSON: the ' +
    'message names `body`. Without a body, or with another content type, this never happens.',
  schema: envelope(400, namingOneOf([]).meta({ examples: [NOT_JSON] })),
  example: { code: 400, message: NOT_JSON },
};

/** The guard's answers. */
export const guardFailure = failure(
  `No token (\`${NO_TOKEN_MESSAGE}\`), or no live session for it (\`${INVALID_TOKEN_MESSAGE}\`).`,
  401,
  [NO_TOKEN_MESSAGE, INVALID_TOKEN_MESSAGE],
);

/** The login limiter's lock; `Retry-After` says for how long. */
export const locked: ResponseDoc = {
  ...failure(
    'Too many failed attempts for this username from this client address: locked, even for the right password.',
    429,
    TOO_MANY_FAILURES,
  ),
  headers: {
    'Retry-After': {
      description: 'Seconds until the lock on this username and client address ends.',
      schema: z.int().positive(),
    },
  },
};

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
});
