import type { IncomingMessage, ServerResponse } from 'node:http';
import { INVALID_TOKEN_MESSAGE, NO_TOKEN_MESSAGE, STORE_UNAVAILABLE_MESSAGE } from './messages.js';
import { readToken } from './read-token.js';
import { SessionStoreError } from './store-error.js';
import { type AuthUser, createSessionValidator, type SessionOptions } from './validator.js';

declare global {
  namespace Express {
    interface Request {
      /** The token of a request the guard let through. */
      token?: string;
      /** The owner of that token's session. */
      user?: AuthUser;
    }
  }
}

/** Why the guard refused: no token, no live session for it, or Redis failed. */
export type RejectReason = 'missing' | 'invalid' | 'unavailable';
export type GuardOutcome = 'allowed' | RejectReason;

/** What the guard needs of a request and a response: Express's, or any compatible ones. */
export type GuardRequest = IncomingMessage & { token?: string; user?: AuthUser };
export type GuardResponse = ServerResponse & {
  status(code: number): { json(body: unknown): unknown };
};
type Next = (err?: unknown) => void;

export interface GuardOptions<Req extends GuardRequest = GuardRequest, Res = GuardResponse>
  extends SessionOptions {
  /**
   * Answers a refused request; for `unavailable`, `err` is Redis's error (pass
   * it to `next` to let the host's error handler answer). Default: the status
   * (401 or 503) with `{ code, message }` in the spec's words.
   */
  onReject?: (req: Req, res: Res, next: Next, reason: RejectReason, err?: unknown) => void;
  /**
   * Told when Redis fails, before the refusal. Default: `req.log.error` when
   * the app has a request logger and the guard answers itself (no `onReject`).
   */
  onStoreError?: (err: unknown, req: Req) => void;
  /** Told every answer's outcome, for metrics. */
  onOutcome?: (outcome: GuardOutcome) => void;
}

const MESSAGES: Record<RejectReason, [number, string]> = {
  missing: [401, NO_TOKEN_MESSAGE],
  invalid: [401, INVALID_TOKEN_MESSAGE],
  unavailable: [503, STORE_UNAVAILABLE_MESSAGE],
};

/** The status and `{ code, message }` body the auth service gives for a refusal. */
export function rejection(reason: RejectReason): {
  status: number;
  body: { code: number; message: string };
} {
  const [status, message] = MESSAGES[reason];
  return { status, body: { code: status, message } };
}

const answer = (_req: GuardRequest, res: GuardResponse, _next: Next, reason: RejectReason) => {
  const { status, body } = rejection(reason);
  res.status(status).json(body);
};

function logToRequestLogger(err: unknown, req: GuardRequest): void {
  const log = (req as { log?: { error?: (obj: object, msg: string) => void } }).log;
  log?.error?.({ err }, 'session store unavailable');
}

/**
 * Express middleware that lets a request through only with a live session,
 * setting `req.token` and `req.user`: 401 without a token or without a
 * session, 503 when Redis fails (an outage never logs anyone out). Roles are
 * not checked.
 */
export function createGuard<
  Req extends GuardRequest = GuardRequest,
  Res extends GuardResponse = GuardResponse,
>(options: GuardOptions<Req, Res>) {
  const validator = createSessionValidator(options);
  const { onReject = answer, onOutcome } = options;
  const onStoreError = options.onStoreError ?? (options.onReject ? undefined : logToRequestLogger);

  return async (req: Req, res: Res, next: Next): Promise<void> => {
    const reject = (reason: RejectReason, err?: unknown) => {
      onOutcome?.(reason);
      onReject(req, res, next, reason, err);
    };
    const token = readToken(req.headers);
    if (token === undefined) return reject('missing');
    let user: AuthUser | null;
    try {
      user = await validator.validate(token, req);
    } catch (err) {
      if (!(err instanceof SessionStoreError)) throw err;
      onStoreError?.(err.cause, req);
      return reject('unavailable', err.cause);
    }
    if (user === null) return reject('invalid');
    req.token = token;
    req.user = user;
    onOutcome?.('allowed');
    next();
  };
}
