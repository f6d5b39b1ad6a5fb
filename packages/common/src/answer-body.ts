/**
 * The body of an answer common writes for a service (a health probe, a request
 * Node could not parse, the metrics listener's 404), in that service's
 * envelope: common builds none of its own. `code` is the HTTP status.
 */
export type AnswerBody = (code: number, message: string, data?: unknown) => unknown;
