import { z } from 'zod';
import { type FailureEnvelope, msgBody } from '../envelopes.js';
import { SERVER_ERROR } from '../messages.js';

/**
 * The codes a spec route fails with besides a missing row: input that breaks a
 * rule or is not valid JSON (400), a body over the limit (413), a body that is
 * not JSON or in an unknown charset (415), and the store (500). The
 * administrator routes add 401 while a token is configured; a whole list and
 * every write 503.
 */
export type FailureCode = 400 | 401 | 409 | 413 | 415 | 422 | 500 | 503;

/** What each failure code means, in every route's document. */
export const CODE_TEXTS: Record<FailureCode, string> = {
  400: 'the input breaks a rule, the text names each field',
  401: 'no or a wrong administrator token, only while PLATFORM_ADMIN_TOKEN is set',
  409: 'the first request with this Idempotency-Key is still being carried out (HTTP 409, with Retry-After)',
  413: 'the body is over the limit',
  415: 'the body is not JSON',
  422: 'the Idempotency-Key was used with another body (HTTP 422)',
  500: 'the store failed, the text says how, never with SQL',
  503: 'busy: LIST_CONCURRENCY whole lists of this route are being read, or a write gave way to a conflicting transaction, or its outcome is unknown (HTTP 503, with Retry-After)',
};

const codesText = (codes: readonly FailureCode[]) =>
  `code ${codes.map((code) => `${code}: ${CODE_TEXTS[code]}`).join('; ')}`;

/** A route's failure envelope with the schema of every body it gives with these codes, for the API document. */
export interface DocumentedFailure extends FailureEnvelope {
  schema(codes: readonly FailureCode[]): z.ZodType;
}

/** Data routes whose failure text is under `error` (lists, order create). */
export function errorEnvelope(message: string): DocumentedFailure {
  return {
    body: (code, text) => ({ code, message, error: text }),
    schema: (codes) =>
      z
        .strictObject({ code: z.literal(codes), message: z.literal(message), error: z.string() })
        .meta({ description: `Failure, the text under error. ${codesText(codes)}` }),
  };
}

/** Data routes whose failure text is under `data` (merchant add, service add). */
export function dataEnvelope(message: string): DocumentedFailure {
  return {
    body: (code, text) => ({ code, message, data: text }),
    schema: (codes) =>
      z
        .strictObject({ code: z.literal(codes), message: z.literal(message), data: z.string() })
        .meta({ description: `Failure, the text under data. ${codesText(codes)}` }),
  };
}

/** Status changes: `{ code: 404, msg: notFound }` for a missing row, else `{ code, msg: '服务器出错', error }`. */
export function msgEnvelope(notFound: string): DocumentedFailure {
  return {
    body: (code, text) =>
      code === 404 ? msgBody(404, notFound) : { code, msg: SERVER_ERROR, error: text },
    schema: (codes) =>
      z.union([
        z
          .strictObject({ code: z.literal(404), msg: z.literal(notFound) })
          .meta({ description: 'No row has the id.' }),
        z
          .strictObject({ code: z.literal(codes), msg: z.literal(SERVER_ERROR), error: z.string() })
          .meta({ description: `Failure, the text under error. ${codesText(codes)}` }),
      ]),
  };
}
