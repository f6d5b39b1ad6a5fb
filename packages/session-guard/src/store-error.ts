/** Redis failed: the token's fate is unknown, so the answer is 503, never 401. */
export class SessionStoreError extends Error {
  override name = 'SessionStoreError';
}

/** The work's result, or a SessionStoreError carrying Redis's error as its cause. */
export async function fromStore<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw new SessionStoreError('the session store (Redis) failed', { cause: err });
  }
}
