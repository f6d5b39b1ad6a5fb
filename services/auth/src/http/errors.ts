import {
  AppError,
  BusyError,
  bodyFaultOf,
  LockConflictError,
  messageBody,
  OutcomeUnknownError,
  StoreUnavailableError,
} from '@svc/common';
import { STORE_UNAVAILABLE_MESSAGE } from '@svc/session-guard';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import {
  BODY_FAULTS,
  INTERNAL_ERROR,
  METHOD_NOT_ALLOWED,
  NOT_FOUND,
  OUTCOME_UNKNOWN,
} from './messages.js';

/** The JSON 404 of every path no route answers. */
export const notFound: RequestHandler = (_req, res) => {
  res.status(404).json(messageBody(404, NOT_FOUND));
};

/** The 405 of a known path asked with another method; `allow` lists the path's methods. */
export function methodNotAllowed(allow: string): RequestHandler {
  return (_req, res) => {
    res.set('Allow', allow).status(405).json(messageBody(405, METHOD_NOT_ALLOWED));
  };
}

/** A request whose outcome is unknown, or that gave way to another's locks, may be sent again at once. */
const RETRY_AFTER_SECONDS = 1;

/** The status and text an error answers with. */
function answerFor(err: unknown): { status: number; message: string } {
  if (err instanceof OutcomeUnknownError) return { status: 503, message: OUTCOME_UNKNOWN };
  if (
    err instanceof StoreUnavailableError ||
    err instanceof BusyError ||
    err instanceof LockConflictError
  ) {
    return { status: 503, message: STORE_UNAVAILABLE_MESSAGE };
  }
  if (err instanceof AppError) return { status: err.status, message: err.message };
  const body = bodyFaultOf(err);
  if (body) return { status: body.status, message: BODY_FAULTS[body.fault] };
  return { status: 500, message: INTERNAL_ERROR };
}

/** How long a client waits before sending a refused request again, when it may. */
function retryAfter(err: unknown): number | undefined {
  if (err instanceof BusyError) return err.retryAfterSeconds;
  if (err instanceof OutcomeUnknownError || err instanceof LockConflictError) {
    return RETRY_AFTER_SECONDS;
  }
  return undefined;
}

/**
 * The one place an error becomes an answer: a store outage 503 (never a 401),
 * a busy limiter or a lost lock wait 503 with Retry-After (nothing was
 * written), an outcome the service cannot know 503 with Retry-After in its
 * own words, an AppError its status and text, a refused body its status,
 * anything else a 500 that names nothing. Failures of the service itself are
 * logged.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, next) => {
  if (res.headersSent) {
    next(err);
    return;
  }
  const { status, message } = answerFor(err);
  const wait = retryAfter(err);
  if (wait !== undefined) res.set('Retry-After', String(wait));
  if (err instanceof StoreUnavailableError) req.log.error({ err }, 'store unavailable');
  else if (err instanceof OutcomeUnknownError) req.log.error({ err }, 'outcome unknown');
  else if (status >= 500) req.log.error({ err }, 'request failed');
  res.status(status).json(messageBody(status, message));
};
