/**
 * A failure with a known answer: `status` is the outcome's code (the HTTP
 * status, or the body code in an envelope answered at HTTP 200) and `message`
 * the text the service answers with.
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

/**
 * A store (Redis or MySQL) could not serve the request. Data access throws
 * it; each service's error handler decides the answer.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';

  constructor(
    readonly store: 'mysql' | 'redis',
    cause?: unknown,
  ) {
    super(`${store} is unavailable`, { cause });
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
