import { AppError, type ResponseDoc } from '@svc/common';
import {
  INVALID_TOKEN_MESSAGE,
  NO_TOKEN_MESSAGE,
  STORE_UNAVAILABLE_MESSAGE,
} from '@svc/session-guard';
import { z } from 'zod';
import { BODY_FAULTS, METHOD_NOT_ALLOWED, NOT_FOUND, OUTCOME_UNKNOWN } from '../http/messages.js';
import { parseBody } from '../input/parse.js';

/** The two ways to send a token (see securitySchemes in openapi.ts): a guarded route takes either. */
export const TOKEN_REQUIRED: Record<string, string[]>[] = [{ bearer: [] }, { token: [] }];
/** `{}` first: the route answers without a token as well. */
export const TOKEN_OPTIONAL: Record<string, string[]>[] = [{}, ...TOKEN_REQUIRED];

type Messages = string | [string, ...string[]];

/** `{ code, message, data? }`, the HTTP status as `code`, and no other keys. */
export function envelope(code: number, message: z.ZodType, data?: z.ZodType) {
  return z.strictObject({ code: z.literal(code), message, ...(data ? { data } : {}) });
}

/** A success with a fixed message and, when given, its data. */
export function success(
  description: string,
  message: string,
  data?: { schema: z.ZodType; example: unknown },
): ResponseDoc {
  return {
    description,
    schema: envelope(200, z.literal(message), data?.schema),
    example: data ? { code: 200, message, data: data.example } : { code: 200, message },
  };
}

/** A failure whose message is one of fixed texts; the first is the example. */
export function failure(description: string, code: number, messages: Messages): ResponseDoc {
  const texts = typeof messages === 'string' ? [messages] : messages;
  return {
    description,
    schema: envelope(code, z.literal(texts)),
    example: { code, message: texts[0] },
  };
}

/**
 * A message that names one of these JSON keys, as every validation message
 * does: `username: …`, or `… (body)` when the body itself is wrong.
 */
function namingOneOf(keys: string[]) {
  return z.string().regex(new RegExp(`\\b(${[...keys, 'body'].join('|')})\\b`));
}

/** What the real validator answers for a bad body, so the examples cannot drift. */
function refusalOf(schema: z.ZodObject, body: unknown): string {
  try {
    parseBody(schema, body);
  } catch (err) {
    if (err instanceof AppError) return err.message;
    throw err;
  }
  throw new Error(`example body passes validation: ${JSON.stringify(body)}`);
}

/** The 400 of a bad body, as `parseBody` words it; `also`: the route's own 400s, the first the example. */
export function invalidBody(
  schema: z.ZodObject,
  badBodies: unknown[],
  also: string[] = [],
): ResponseDoc {
  const validation = namingOneOf(Object.keys(schema.shape));
  const examples = [
    ...also,
    ...badBodies.map((body) => refusalOf(schema, body)),
    refusalOf(schema, []),
    BODY_FAULTS.malformed,
  ];
  const message = also.length > 0 ? z.union([z.literal(also), validation]) : validation;
  return {
    description:
      also.map((text) => `\`${text}\`; or `).join('') +
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
  schema: envelope(400, namingOneOf([]).meta({ examples: [BODY_FAULTS.malformed] })),
  example: { code: 400, message: BODY_FAULTS.malformed },
};

/** The guard's answers. */
export const guardFailure = failure(
  `No token (\`${NO_TOKEN_MESSAGE}\`), or no live session for it (\`${INVALID_TOKEN_MESSAGE}\`).`,
  401,
  [NO_TOKEN_MESSAGE, INVALID_TOKEN_MESSAGE],
);

export const storeUnavailable = failure(
  'Redis or MySQL does not answer. Sessions stay valid; retry later.',
  503,
  STORE_UNAVAILABLE_MESSAGE,
);

/**
 * A write route's 503: failed with nothing written (a store down, or a lock
 * wait lost to another transaction: then with Retry-After), or an outcome the
 * service cannot know, which the same request sent again settles.
 */
export const writeUnavailable: ResponseDoc = {
  ...failure(
    'Failed, nothing written: Redis or MySQL does not answer, or (with `Retry-After`) the write ' +
      `gave way to another transaction's locks. Or \`${OUTCOME_UNKNOWN}\` (with \`Retry-After\`): ` +
      'the write may have happened; send the same request again to settle it.',
    503,
    [STORE_UNAVAILABLE_MESSAGE, OUTCOME_UNKNOWN],
  ),
  headers: {
    'Retry-After': {
      description: 'Seconds to wait before sending the same request again.',
      schema: z.int().positive(),
      required: false,
    },
  },
};

/** What the JSON body parser answers before any route runs. */
export const bodyParserFailures: Record<number, ResponseDoc> = {
  413: failure('The body is over the limit (100 kB by default).', 413, BODY_FAULTS['too-large']),
  415: failure(
    'The body has a Content-Encoding or charset the parser does not take.',
    415,
    BODY_FAULTS.unsupported,
  ),
};

/** The answer for every path the document does not list. */
export const notFoundBody = envelope(404, z.literal(NOT_FOUND));

/** The answer of a listed path asked with a method it does not list. */
export const wrongMethod: ResponseDoc = {
  description: 'The path asked with another method; `Allow` names the methods it takes.',
  schema: envelope(405, z.literal(METHOD_NOT_ALLOWED)),
  example: { code: 405, message: METHOD_NOT_ALLOWED },
  headers: { Allow: { description: "The path's methods.", schema: z.string() } },
};

/** What every guarded route without a body may answer besides its success. */
export const guardedFailures: Record<number, ResponseDoc> = {
  400: strayBody,
  401: guardFailure,
  ...bodyParserFailures,
  503: storeUnavailable,
};

/** The same for a guarded route that writes. */
export const guardedWriteFailures: Record<number, ResponseDoc> = {
  ...guardedFailures,
  503: writeUnavailable,
};

/** The User-Agent the session and security-log examples were made with. */
export const EXAMPLE_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/136.0';
