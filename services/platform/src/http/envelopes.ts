/**
 * The spec's bodies: data routes answer `{ code, message, data }`, status
 * changes `{ code, msg }`. Each route's failure body is its FailureEnvelope,
 * given in its route document (api-docs/failure-envelopes.ts).
 */

export function messageBody<T>(code: number, message: string, data?: T) {
  return data === undefined ? { code, message } : { code, message, data };
}

export function msgBody(code: number, msg: string) {
  return { code, msg };
}

/** How one route answers a failure: the spec gives each route its own message and key for the text. */
export interface FailureEnvelope {
  body(code: number, text: string): object;
}
