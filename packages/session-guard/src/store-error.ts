/** Redis failed: the token's fate is unknown, so the answer is 503, never 401. */
export class SessionStoreError extends Error {
  override name = 'SessionStoreError';
}

/**
 * A write that may have been carried out: it was sent and its answer never
 * came (the connection lost, a timeout), or a change of several writes
 * stopped part way. What Redis holds is not known; the same request, tried
 * again, settles it.
 */
export class SessionOutcomeUnknownError extends SessionStoreError {
  override name = 'SessionOutcomeUnknownError';
}

const sessionStoreError = (err: unknown) =>
  err instanceof SessionStoreError
    ? err
    : new SessionStoreError('the session store (Redis) failed', { cause: err });

/**
 * The work's result; its failure (the connection down, a timeout, a refusal)
 * is `failure(err)`, by default a SessionStoreError carrying Redis's error as
 * its cause (a SessionOutcomeUnknownError as it is), so an outage never reads
 * as a missing key or a logged-out user. A host with errors of its own passes
 * the one it answers an outage with.
 */
export async function fromStore<T>(
  work: Promise<T>,
  failure: (err: unknown) => Error = sessionStoreError,
): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw failure(err);
  }
}
