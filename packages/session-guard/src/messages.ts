/** The guard's answers, to the character: clients compare them. */
export const NO_TOKEN_MESSAGE = '未携带Token,请先登录';
export const INVALID_TOKEN_MESSAGE = 'Token无效或已过期,请重新登录';
export const STORE_UNAVAILABLE_MESSAGE = '服务暂不可用,请稍后重试';
