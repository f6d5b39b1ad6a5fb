import {
  type FailureRenderer,
  type Logger,
  messageBody,
  messageError,
  msgBody,
  renderStatusEnvelope,
} from '@svc/common';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';

/**
 * The body an endpoint answers when it fails: the spec gives each endpoint its
 * own message and its own key for the text. The outcome travels in `code`.
 */
export type FailureEnvelope = (code: number, text: string) => object;

/** Data routes whose failure text is under `error` (lists, order create). */
export const errorEnvelope =
  (message: string): FailureEnvelope =>
  (code, text) =>
    messageError(code, message, text);

/** Data routes whose failure text is under `data` (merchant add, service add). */
export const dataEnvelope =
  (message: string): FailureEnvelope =>
  (code, text) =>
    messageBody(code, message, text);

/** Status changes: `{ code: 404, msg: notFound }` for a missing row, else `{ code, msg: '服务器出错', error }`. */
export const msgEnvelope =
  (notFound: string): FailureEnvelope =>
  (code, text) =>
    code === 404 ? msgBody(404, notFound) : msgBody(code, '服务器出错', text);

const ENVELOPE = 'failureEnvelope';
const BODY_ERROR = 'bodyError';

/**
 * Body parsing runs before routing, so its errors are held until a route
 * matches: a broken body then gets that route's envelope, and on a path no
 * route answers the 404 wins.
 */
export const holdBodyErrors: ErrorRequestHandler = (err, _req, res, next) => {
  const { type, status } = (err ?? {}) as { type?: unknown; status?: unknown };
  if (typeof type === 'string' && typeof status === 'number' && status < 500) {
    res.locals[BODY_ERROR] = err;
    next();
  } else {
    next(err);
  }
};

/** Marks the request as the endpoint's, then lets a held body error through. */
export function failsWith(envelope: FailureEnvelope): RequestHandler {
  return (_req, res, next) => {
    res.locals[ENVELOPE] = envelope;
    next(res.locals[BODY_ERROR]);
  };
}

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
  res.status(200).json(envelope(failure.status, failure.detail ?? failure.message));
};
