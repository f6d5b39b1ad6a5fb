import type { BodyFault } from '@svc/common';

/** The texts of answers no route chooses: outages, unknown paths, refused bodies. */
export const UNAVAILABLE = '服务暂不可用,请稍后重试';
export const NOT_FOUND = 'Not Found';
export const INTERNAL_ERROR = '服务器内部错误';

/** What express.json() refused, in the words every validation message uses (naming `body`). */
export const BODY_FAULTS: Record<BodyFault, string> = {
  malformed: '请求体不是合法的JSON (body)',
  'too-large': '请求体过大',
  unsupported: '不支持的请求体编码 (body)',
  undecodable: '请求无效 (body)',
  invalid: '请求无效 (body)',
};
