/**
 * The spec's bodies: data routes answer `{ code, message, data }` (common's
 * messageBody), status
 * changes `{ code, msg }`. Each route's failure body is its FailureEnvelope,
 * given in its route document (docs/failure-envelopes.ts).
 */

export function msgBody(code: number, msg: string) {
  return { code, msg };
}

/** How one route answers a failure: the spec gives each route its own message and key for the text. */
export interface FailureEnvelope {
  body(code: number, text: string): object;
  /**
   * Answered at the HTTP status of its code (the events and webhook routes,
   * which the spec does not have), a store outage as 503; otherwise HTTP 200.
   */
  atStatus?: true;
}

/** The events and webhook routes' failures: `{ code, message }` at that HTTP status. */
export const statusEnvelope: FailureEnvelope = {
  body: (code, text) => ({ code, message: text }),
  atStatus: true,
};
