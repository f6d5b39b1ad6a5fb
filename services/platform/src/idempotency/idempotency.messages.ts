/** The header whose presence makes a create idempotent (request-key.ts). */
export const IDEMPOTENCY_KEY = 'idempotency-key';

/** The answer's header that says a create was replayed, not carried out again. */
export const IDEMPOTENT_REPLAYED = 'Idempotent-Replayed';

/** The English texts of a keyed create's failures, under the route's own failure key. */
export const KEY_MALFORMED =
  'Idempotency-Key must be 1 to 255 visible ASCII characters (! to ~), optionally in double quotes, sent once';
export const KEY_REUSED = 'Idempotency-Key was used with a different request';
export const KEY_IN_FLIGHT =
  'a request with this Idempotency-Key is still being carried out, try again shortly';
