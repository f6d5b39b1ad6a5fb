import type { ResponseDoc } from '@svc/common';
import { z } from 'zod';
import { BODY_FAULTS, NOT_FOUND, UNAVAILABLE } from './messages.js';

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
export function namingOneOf(keys: string[]) {
  return z.string().regex(new RegExp(`\\b(${[...keys, 'body'].join('|')})\\b`));
}

export const storeUnavailable = failure(
  'Redis or MySQL does not answer. Sessions stay valid; retry later.',
  503,
  UNAVAILABLE,
);

/** What the JSON body parser answers before any route runs. */
export const bodyParserFailures: Record<number, ResponseDoc> = {
  413: failure('The body is over the limit (100 kB by default).', 413, BODY_FAULTS['too-large']),
  415: failure(
    'The body has a Content-Encoding or charset the parser does not take.',
    415,
    BODY_FAULTS.unsupported,
  ),
};

/** The answer for every path and method the document does not list. */
export const notFoundBody = envelope(404, z.literal(NOT_FOUND));

/** The parser's answer to a body that is not JSON (it names `body`, like every validation message). */
export const NOT_JSON = BODY_FAULTS.malformed;
