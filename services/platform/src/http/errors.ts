import {
  AppError,
  BusyError,
  bodyFaultOf,
  LockConflictError,
  MissingReferenceError,
  messageBody,
  NotFoundError,
  OutcomeUnknownError,
  StoreUnavailableError,
} from '@svc/common';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { KEY_IN_FLIGHT, KEY_MALFORMED, KEY_REUSED } from '../idempotency/idempotency.messages.js';
import { KeyInFlightError, KeyMalformedError, KeyReusedError } from '../idempotency/key-errors.js';
import type { FailureEnvelope } from './envelopes.js';
import {
  BODY_FAULTS,
  INTERNAL_ERROR,
  LISTS_BUSY,
  METHOD_NOT_ALLOWED,
  NOT_FOUND,
  noSuchRow,
  OUTCOME_UNKNOWN,
  STORAGE_UNAVAILABLE,
  UNEXPECTED,
  WRITE_CONFLICT,
} from './messages.js';

/** A create that gave way twice to another transaction's locks: those are mostly held for milliseconds. */
const CONFLICT_RETRY_SECONDS = 1;

/** The outcome code and English text of an error a route met, and when to retry. */
function failureOf(
  err: unknown,
  envelope: FailureEnvelope,
): { code: number; text: string; retryAfter?: number } {
  if (err instanceof AppError) return { code: err.status, text: err.message };
  if (err instanceof StoreUnavailableError) {
    const code = envelope.atStatus ? 503 : 500;
    return { code, text: STORAGE_UNAVAILABLE, retryAfter: STORE_RETRY_SECONDS };
  }
  if (err instanceof LockConflictError) {
    return { code: 503, text: WRITE_CONFLICT, retryAfter: CONFLICT_RETRY_SECONDS };
  }
  if (err instanceof OutcomeUnknownError) {
    return { code: 503, text: OUTCOME_UNKNOWN, retryAfter: STORE_RETRY_SECONDS };
  }
  if (err instanceof NotFoundError) return { code: 404, text: noSuchRow(err.what, err.id) };
  if (err instanceof KeyInFlightError) return { code: 409, text: KEY_IN_FLIGHT };
  if (err instanceof KeyReusedError) return { code: 422, text: KEY_REUSED };
  if (err instanceof KeyMalformedError) return { code: 400, text: KEY_MALFORMED };
  if (err instanceof MissingReferenceError && err.what !== undefined) {
    return { code: 500, text: noSuchRow(err.what, err.id ?? '') };
  }
  if (err instanceof BusyError) {
    return { code: 503, text: LISTS_BUSY, retryAfter: err.retryAfterSeconds };
  }
  const body = bodyFaultOf(err);
  if (body) return { code: body.status, text: BODY_FAULTS[body.fault] };
  return { code: 500, text: UNEXPECTED };
}

/**
 * Outcomes answered at their own HTTP status, so proxies and clients that only
 * look at the status see them: an Idempotency-Key in flight (409, retry) or
 * reused with another body (422), a whole list refused for want of a slot, a
 * create that gave way to another transaction's locks, or a write whose
 * outcome is unknown (503, retry).
 * Every other outcome is HTTP 200, as the spec has it.
 */
const OWN_STATUS = new Set([409, 422, 503]);
const KEY_IN_FLIGHT_RETRY_SECONDS = 1;
const STORE_RETRY_SECONDS = 1;

/**
 * The service's one error middleware, last in the app. A route's failure
 * answers in that route's envelope (`envelopes`, by route path, from the route
 * tables: http/routes.ts), the outcome in `code`; anything else, outside the
 * tables (probes, the document), is a JSON 500 that names nothing.
 */
export function errorHandler(envelopes: ReadonlyMap<string, FailureEnvelope>): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const envelope = envelopes.get(req.route?.path);
    if (!envelope) {
      req.log.error({ err }, 'request failed');
      res.status(500).json(messageBody(500, INTERNAL_ERROR));
      return;
    }
    const { code, text, retryAfter } = failureOf(err, envelope);
    if (code >= 500) req.log.error({ err }, 'request failed');
    else req.log.warn({ failure: { status: code, detail: text } }, 'request rejected');
    const retry = code === 409 ? KEY_IN_FLIGHT_RETRY_SECONDS : retryAfter;
    if (retry !== undefined) res.set('Retry-After', String(retry));
    const status = envelope.atStatus || OWN_STATUS.has(code) ? code : 200;
    res.status(status).json(envelope.body(code, text));
  };
}

/** The 405 of a known path asked with another method; `allow` lists the path's methods. */
export function methodNotAllowed(allow: string): RequestHandler {
  return (_req, res) => {
    res.set('Allow', allow).status(405).json(messageBody(405, METHOD_NOT_ALLOWED));
  };
}

/** The JSON 404 of every path no route answers. */
export const notFound: RequestHandler = (_req, res) => {
  res.status(404).json(messageBody(404, NOT_FOUND));
};
