/**
 * A failure with a known answer: `status` is the outcome's code (the HTTP
 * status, or the body code in an envelope answered at HTTP 200) and `message`
 * the text the service answers with. Thrown by the HTTP side of a service
 * (input rules, tokens), never by its data access, which throws the domain
 * errors below and leaves the answer to the service's error middleware.
 */
export class AppError extends Error {
  override name = 'AppError';

  constructor(
    readonly status: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A store (Redis or MySQL) could not serve the request: down, unreachable or too slow. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';

  constructor(
    readonly store: 'mysql' | 'redis',
    cause?: unknown,
  ) {
    super(`${store} is unavailable`, { cause });
  }
}

/**
 * A write was sent and its answer never came (the connection lost, or the
 * server still working when the service gave up and could not stop it): it
 * may have been written or not. Never answered as a failure; a retry that
 * can tell (one with the same Idempotency-Key) settles it.
 */
export class OutcomeUnknownError extends Error {
  override name = 'OutcomeUnknownError';

  constructor(
    readonly store: 'mysql' | 'redis',
    cause?: unknown,
  ) {
    super(`the outcome of a write to ${store} is unknown`, { cause });
  }
}

/** No row has the id: `what` names the kind of row (`order`). */
export class NotFoundError extends Error {
  override name = 'NotFoundError';

  constructor(
    readonly what: string,
    readonly id: number | string,
  ) {
    super(`no ${what} has id ${id}`);
  }
}

/**
 * A write names a row that does not exist (a foreign key finds no row):
 * nothing was written. `what` and `id` name that row when the writer knows
 * them; the driver's error alone tells only that one is missing.
 */
export class MissingReferenceError extends Error {
  override name = 'MissingReferenceError';

  constructor(
    readonly what?: string,
    readonly id?: number | string,
    options?: { cause?: unknown },
  ) {
    super(what === undefined ? 'a referenced row is missing' : `no ${what} has id ${id}`, options);
  }
}

/** A write found its unique key taken: nothing of its transaction was written. */
export class DuplicateEntryError extends Error {
  override name = 'DuplicateEntryError';

  constructor(options?: { cause?: unknown }) {
    super('unique key taken', options);
  }
}

/**
 * The server gave up a statement for another transaction's locks: a lost
 * deadlock, a lock wait past its bound, or a lock asked for without waiting
 * (NOWAIT) that another held. Nothing of the transaction is kept; the same
 * work may succeed when tried again.
 */
export class LockConflictError extends Error {
  override name = 'LockConflictError';

  constructor(options?: { cause?: unknown }) {
    super('gave way to a conflicting transaction', options);
  }
}

/** No slot came free in time for the work: it may succeed after `retryAfterSeconds`. */
export class BusyError extends Error {
  override name = 'BusyError';

  constructor(readonly retryAfterSeconds: number) {
    super('no free slot');
  }
}

/** A store could not be reached at start-up; the message is the one line an operator reads. */
export class StoreUnreachableError extends Error {
  override name = 'StoreUnreachableError';

  constructor(store: string, address: string, variables: string[], cause: unknown) {
    const reason = errorCode(cause);
    super(`cannot reach ${store} at ${address} (${reason}); set ${variables.join(', ')}`, {
      cause,
    });
  }
}

function errorCode(err: unknown): string {
  if (err && typeof err === 'object') {
    const { code, message } = err as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && code) return code;
    if (typeof message === 'string' && message) return message;
  }
  return String(err);
}
