import type { BodyFault } from '@svc/common';

/**
 * The texts every resource shares. A route's own texts are in its resource's
 * `*.messages.ts`; the English texts under `error` or `data` name the cause.
 */
export const LISTED = '获取成功';
export const LIST_FAILED = '获取失败';
/** The `msg` of a failed status change other than a missing row. */
export const SERVER_ERROR = '服务器出错';

export const STORAGE_UNAVAILABLE = 'storage is unavailable';
/** A path id, a page or a referenced id that is not 1 to 2147483647: `id must be a positive integer`. */
export const notPositive = (field: string) => `${field} must be a positive integer`;
export const UNEXPECTED = 'internal error';
export const ADMIN_TOKEN_REQUIRED = 'administrator token required';
export const WRITE_CONFLICT =
  'the database gave this write up for a conflicting one (deadlock or lock wait), try again shortly';
/** A write sent whose answer never came: it may or may not have been written. */
export const OUTCOME_UNKNOWN =
  'the outcome is unknown: the database did not answer after the write was sent; retry it (a create with the same Idempotency-Key) to settle it';
export const LISTS_BUSY = 'too many whole lists are being read at once, try again shortly';
export const NOT_AN_OBJECT = 'request body must be a JSON object';
/** The `limit` of the events feed and of a webhook's deliveries. */
export const BAD_LIMIT = 'limit must be an integer from 1 to 500';
export const NOT_JSON_TYPE = 'Content-Type must be application/json';
/** A row an id names is missing: `order 7 does not exist`. */
export const noSuchRow = (what: string, id: number | string) => `${what} ${id} does not exist`;

/** What express.json() refused. */
export const BODY_FAULTS: Record<BodyFault, string> = {
  malformed: 'request body is not valid JSON',
  'too-large': 'request body is too large',
  unsupported: 'request body encoding is not supported',
  undecodable: 'request body does not decode with its Content-Encoding',
  invalid: 'request is invalid',
};

/** Answers outside the spec's routes, at their HTTP status. */
export const NOT_FOUND = 'Not Found';
export const METHOD_NOT_ALLOWED = 'Method Not Allowed';
export const INTERNAL_ERROR = '服务器内部错误';
export const NOT_READY = '服务暂不可用,请稍后重试';
