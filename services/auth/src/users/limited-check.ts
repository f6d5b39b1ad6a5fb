import { AppError } from '@svc/common';
import type { Request, Response } from 'express';
import type { Counted, LoginLimiter } from './login-limiter.js';
import { TOO_MANY_FAILURES } from './user.messages.js';

/**
 * Password checks in limiter slots. A lock answers 429 with Retry-After
 * whatever the password, before any check; a check admitted is settled with
 * its outcome, `lockStarted` when this failure locked what it counts against.
 * A right password whose login waits for its second factor (`pending`) only
 * frees its slot: the failures before it end with the second step's success.
 */
export function limitedChecks(limiter: LoginLimiter, onPasswordCheck?: () => void) {
  return async function limitedCheck<T extends { ok: boolean; pending?: boolean }>(
    req: Request,
    res: Response,
    username: string,
    counted: Counted,
    check: () => Promise<T>,
    /** A login's device, which a success makes the user's last. */
    device?: string,
  ): Promise<{ verdict: T; lockStarted: boolean }> {
    const admission = await limiter.admit(username, counted, () => !req.socket.destroyed);
    if (admission.outcome === 'locked') {
      res.setHeader('Retry-After', String(admission.retryAfter));
      throw new AppError(429, TOO_MANY_FAILURES);
    }
    const { slot } = admission;
    let verdict: T;
    try {
      onPasswordCheck?.();
      verdict = await check();
    } catch (err) {
      await limiter.settle(slot, 'abandoned').catch(() => {});
      throw err;
    }
    const outcome = verdict.ok ? (verdict.pending ? 'abandoned' : 'succeeded') : 'failed';
    const lockStarted = await limiter.settle(slot, outcome, device);
    return { verdict, lockStarted };
  };
}
