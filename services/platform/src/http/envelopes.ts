import { z } from 'zod';
import { INT_MAX } from './fields.js';
import { LISTED, METHOD_NOT_ALLOWED, NOT_FOUND, SERVER_ERROR } from './messages.js';

/**
 * The spec's bodies: data routes answer `{ code, message, data }` (a failure's
 * text under `error` or `data`), status changes `{ code, msg }`. Builders for
 * the handlers, zod schemas for the API document and its tests.
 */

export function messageBody<T>(code: number, message: string, data?: T) {
  return data === undefined ? { code, message } : { code, message, data };
}

export function msgBody(code: number, msg: string) {
  return { code, msg };
}

/** An INT AUTO_INCREMENT key, or a reference to one. */
export const rowId = z.int().min(1).max(INT_MAX);

/** A TIMESTAMP as the lists write it (see db/iso-time.ts). */
export const timestamp = z.iso.datetime().meta({
  description: 'insertion time, ISO 8601 in UTC',
  examples: ['2026-11-22T19:15:04.000Z'],
});

/** `{ code: 200, message: '获取成功', data: [rows] }` */
export const listReply = (row: z.ZodType) =>
  z.strictObject({ code: z.literal(200), message: z.literal(LISTED), data: z.array(row) });

/** `{ code: 200, message, data: { id } }` for a created row. */
export const createdReply = (message: string) =>
  z.strictObject({
    code: z.literal(200),
    message: z.literal(message),
    data: z.strictObject({ id: rowId }),
  });

/** `{ code: 200, msg }` for a status change. */
export const changedReply = (msg: string) =>
  z.strictObject({ code: z.literal(200), msg: z.literal(msg) });

/** Every path no route answers: HTTP 404. */
export const notFoundBody = z.strictObject({
  code: z.literal(404),
  message: z.literal(NOT_FOUND),
});

/** A known path asked with another method: HTTP 405. */
export const methodNotAllowedBody = z.strictObject({
  code: z.literal(405),
  message: z.literal(METHOD_NOT_ALLOWED),
});

/**
 * The codes a spec route fails with besides a missing row: input that breaks a
 * rule or is not valid JSON (400), a body over the limit (413), a body that is
 * not JSON or in an unknown charset (415), and the store (500). The
 * administrator routes add 401 while a token is configured; a whole list 503.
 */
export type FailureCode = 400 | 401 | 409 | 413 | 415 | 422 | 500 | 503;

const CODE_TEXTS: Record<FailureCode, string> = {
  400: 'the input breaks a rule, the text names each field',
  401: 'no or a wrong administrator token, only while PLATFORM_ADMIN_TOKEN is set',
  409: 'the first request with this Idempotency-Key is still being carried out (HTTP 409, with Retry-After)',
  413: 'the body is over the limit',
  415: 'the body is not JSON',
  422: 'the Idempotency-Key was used with another body (HTTP 422)',
  500: 'the store failed, the text says how, never with SQL',
  503: 'LIST_CONCURRENCY whole lists of this route are being read (HTTP 503, with Retry-After)',
};

const codesText = (codes: readonly FailureCode[]) =>
  `code ${codes.map((code) => `${code}: ${CODE_TEXTS[code]}`).join('; ')}`;

/**
 * How a route answers when it fails: the spec gives each route its own message
 * and its own key for the text. `schema` describes every body `body` gives
 * with these codes, for the API document.
 */
export interface FailureEnvelope {
  body(code: number, text: string): object;
  schema(codes: readonly FailureCode[]): z.ZodType;
}

/** Data routes whose failure text is under `error` (lists, order create). */
export function errorEnvelope(message: string): FailureEnvelope {
  return {
    body: (code, text) => ({ code, message, error: text }),
    schema: (codes) =>
      z
        .strictObject({ code: z.literal(codes), message: z.literal(message), error: z.string() })
        .meta({ description: `Failure, the text under error. ${codesText(codes)}` }),
  };
}

/** Data routes whose failure text is under `data` (merchant add, service add). */
export function dataEnvelope(message: string): FailureEnvelope {
  return {
    body: (code, text) => ({ code, message, data: text }),
    schema: (codes) =>
      z
        .strictObject({ code: z.literal(codes), message: z.literal(message), data: z.string() })
        .meta({ description: `Failure, the text under data. ${codesText(codes)}` }),
  };
}

/** Status changes: `{ code: 404, msg: notFound }` for a missing row, else `{ code, msg: '服务器出错', error }`. */
export function msgEnvelope(notFound: string): FailureEnvelope {
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
