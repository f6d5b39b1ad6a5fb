/**
 * A create's Idempotency-Key is being written by another request, on this
 * instance or another: that request's outcome is not known yet.
 */
export class KeyInFlightError extends Error {
  override name = 'KeyInFlightError';

  constructor(options?: { cause?: unknown }) {
    super('the key is being written by another request', options);
  }
}

/** A create's Idempotency-Key was kept by a request with another body. */
export class KeyReusedError extends Error {
  override name = 'KeyReusedError';

  constructor() {
    super('the key was kept for another request');
  }
}

/** An Idempotency-Key header that is not one (see request-key.ts): nothing was written. */
export class KeyMalformedError extends Error {
  override name = 'KeyMalformedError';

  constructor() {
    super('the Idempotency-Key is malformed');
  }
}
