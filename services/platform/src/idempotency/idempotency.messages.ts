/** The English texts of a keyed create's failures, under the route's own failure key. */
export const KEY_MALFORMED =
  'Idempotency-Key must be 1 to 255 visible ASCII characters (! to ~), optionally in double quotes, sent once';
export const KEY_REUSED = 'Idempotency-Key was used with a different request';
export const KEY_IN_FLIGHT =
  'a request with this Idempotency-Key is still being carried out, try again shortly';
