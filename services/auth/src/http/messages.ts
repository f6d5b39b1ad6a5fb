import type { BodyFault } from '@svc/common';

/**
 * The texts of answers no one route chooses: unknown paths, refused bodies,
 * failures. An outage answers in the guard's words (STORE_UNAVAILABLE_MESSAGE
 * of @svc/session-guard), so the service and every guard say the same.
 */
export const NOT_FOUND = 'Not Found';
export const METHOD_NOT_ALLOWED = 'Method Not Allowed';
export const INTERNAL_ERROR = '服务器内部错误';
/**
 * A write whose result the service cannot know (its answer lost with the
 * store's connection, or a change stopped part way): it may have happened.
 * Sending the same request again settles it.
 */
export const OUTCOME_UNKNOWN = '操作结果未知,请重试同一请求以确认结果';
/** The success of a route that reads. */
export const FOUND = '获取成功';
export const NOT_AN_OBJECT = 'body: 请求体须为JSON对象';

/** What express.json() refused, in the words every validation message uses (naming `body`). */
export const BODY_FAULTS: Record<BodyFault, string> = {
  malformed: '请求体不是合法的JSON (body)',
  'too-large': '请求体过大',
  unsupported: '不支持的请求体编码 (body)',
  undecodable: '请求无效 (body)',
  invalid: '请求无效 (body)',
};
