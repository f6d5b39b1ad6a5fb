import { AppError, StoreUnavailableError } from '@svc/common';
import { createGuard, type GuardOutcome, rejection, type SessionOptions } from '@svc/session-guard';
import type { Request, RequestHandler, Response } from 'express';

/**
 * The guard package's guard on this service's routes. Its refusals go to the
 * app's error handler, which answers every failure: a 401 in the guard's
 * words, or a store outage (503, never a 401).
 */
export function sessionGuard(
  options: SessionOptions,
  onOutcome?: (outcome: GuardOutcome) => void,
): RequestHandler {
  return createGuard<Request, Response>({
    ...options,
    onReject: (_req, _res, next, reason, err) =>
      next(
        reason === 'unavailable'
          ? new StoreUnavailableError('redis', err)
          : new AppError(401, rejection(reason).body.message),
      ),
    onOutcome,
  });
}

/** The session of a request the guard let through: the guard ran before, so both are set. */
export function sessionOf(req: Request): { token: string; username: string } {
  return { token: req.token as string, username: req.user?.username as string };
}
