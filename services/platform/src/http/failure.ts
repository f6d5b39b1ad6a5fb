import {
  AppError,
  type FailureRenderer,
  messageBody,
  messageError,
  msgBody,
  renderStatusEnvelope,
} from '@svc/common';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { z } from 'zod';

/**
 * How an endpoint answers when it fails: the spec gives each endpoint its own
 * message and its own key for the text. The outcome travels in `code`, and
 * `schema` describes every body `body` gives with these codes, for the API
 * document.
 */
export interface FailureEnvelope {
  body(code: number, text: string): object;
  schema(codes: readonly FailureCode[]): z.ZodType;
}

/**
 * The codes a spec route fails with besides a missing row: input that breaks a
 * rule or is not valid JSON (400), a body over the limit (413), a body that is
 * not JSON or in an unknown charset (415), and the store (500). The
 * administrator routes add 401 while a token is configured.
 */
export type FailureCode = 400 | 401 | 413 | 415 | 500 | 503;

export const FAILURE_CODES: readonly FailureCode[] = [400, 413, 415, 500];
export const ADMIN_FAILURE_CODES: readonly FailureCode[] = [400, 401, 413, 415, 500];

const CODE_TEXTS: Record<FailureCode, string> = {
  400: 'the input breaks a rule, the text names each field',
  401: 'no or a wrong administrator token, only while PLATFORM_ADMIN_TOKEN is set',
  413: 'the body is over the limit',
  415: 'the body is not JSON',
  500: 'the store failed, the text says how, never with SQL',
  503: 'LIST_CONCURRENCY whole lists of this route are being read (HTTP 503, with Retry-After)',
};

const codesText = (codes: readonly FailureCode[]) =>
  `code ${codes.map((code) => `${code}: ${CODE_TEXTS[code]}`).join('; ')}`;

/** Data routes whose failure text is under `error` (lists, order create). */
export function errorEnvelope(message: string): FailureEnvelope {
  return {
    body: (code, text) => messageError(code, message, text),
    schema: (codes) =>
      z
        .strictObject({ code: z.literal(codes), message: z.literal(message), error: z.string() })
        .meta({ description: `Failure, the text under error. ${codesText(codes)}` }),
  };
}

/** Data routes whose failure text is under `data` (merchant add, service add). */
export function dataEnvelope(message: string): FailureEnvelope {
  return {
    body: (code, text) => messageBody(code, message, text),
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
      code === 404 ? msgBody(404, notFound) : msgBody(code, '服务器出错', text),
    schema: (codes) =>
      z.union([
        z
          .strictObject({ code: z.literal(404), msg: z.literal(notFound) })
          .meta({ description: 'No row has the id.' }),
        z
          .strictObject({ code: z.literal(codes), msg: z.literal('服务器出错'), error: z.string() })
          .meta({ description: `Failure, the text under error. ${codesText(codes)}` }),
      ]),
  };
}

const ENVELOPE = 'failureEnvelope';
const BODY_ERROR = 'bodyError';

/**
 * Body parsing runs before routing, so its errors are held until a route
 * matches: a broken body then gets that route's envelope, and on a path no
 * route answers the 404 wins. The parser names each error with a `type`,
 * except a body its Content-Encoding does not decode (gzip that is not gzip).
 */
export const holdBodyErrors: ErrorRequestHandler = (err, _req, res, next) => {
  const { type, status } = (err ?? {}) as { type?: unknown; status?: unknown };
  if (typeof status === 'number' && status >= 400 && status < 500) {
    res.locals[BODY_ERROR] =
      typeof type === 'string'
        ? err
        : new AppError(400, 'request body does not decode with its Content-Encoding', undefined, {
            cause: err,
          });
    next();
  } else {
    next(err);
  }
};

/** Marks the request as the endpoint's: its failures answer in this envelope. */
export function failsWith(envelope: FailureEnvelope): RequestHandler {
  return (_req, res, next) => {
    res.locals[ENVELOPE] = envelope;
    next();
  };
}

/** Lets a held body error through, once the route (and its guard) has taken the request. */
export const releaseBodyError: RequestHandler = (_req, res, next) => {
  next(res.locals[BODY_ERROR]);
};

/**
 * The spec's routes answer HTTP 200 with the outcome in their own envelope;
 * anything else (404, 405) answers in common's envelope with a matching status.
 */
export const renderFailure: FailureRenderer = (req, res, failure) => {
  if (failure.status < 500) req.log.warn({ failure }, 'request rejected');
  const envelope = res.locals[ENVELOPE] as FailureEnvelope | undefined;
  if (!envelope) {
    renderStatusEnvelope(req, res, failure);
    return;
  }
  // A whole list refused for want of a slot is also an HTTP 503, so proxies and
  // clients that only look at the status see "retry later".
  res
    .status(failure.status === 503 ? 503 : 200)
    .json(envelope.body(failure.status, failure.detail ?? failure.message));
};
