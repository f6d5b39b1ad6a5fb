/**
 * The body of an answer common writes for a service (a health probe, a request
 * Node could not parse, the metrics listener's 404), in that service's
 * envelope. `code` is the HTTP status.
 */
export type AnswerBody = (code: number, message: string, data?: unknown) => unknown;

/** `{ code, message, data? }`: the shape both services answer in; the texts are theirs. */
interface MessageBody<T = unknown> {
  code: number;
  message: string;
  data?: T;
}

export function messageBody<T>(code: number, message: string, data?: T): MessageBody<T> {
  return data === undefined ? { code, message } : { code, message, data };
}
