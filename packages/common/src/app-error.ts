/**
 * A failure with a known answer: `status` is the HTTP status (and, in the auth
 * envelope, the body code); `data` optionally travels in the body.
 */
export class AppError extends Error {
  override name = 'AppError';

  constructor(
    readonly status: number,
    message: string,
    readonly data?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const UNAVAILABLE_MESSAGE = '服务暂不可用,请稍后重试';

/** A store (Redis or MySQL) could not serve the request. */
export class StoreUnavailableError extends AppError {
  override name = 'StoreUnavailableError';

  constructor(
    readonly store: string,
    cause: unknown,
  ) {
    super(503, UNAVAILABLE_MESSAGE, undefined, { cause });
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

export function errorCode(err: unknown): string {
  if (err && typeof err === 'object') {
    const { code, message } = err as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && code) return code;
    if (typeof message === 'string' && message) return message;
  }
  return String(err);
}
