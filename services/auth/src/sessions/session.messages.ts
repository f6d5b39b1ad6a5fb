/** The texts the session routes answer with, read by the handlers and the OpenAPI document. */
export const SESSION_ENDED = '会话已结束';
export const OTHER_SESSIONS_ENDED = '已退出其他会话';
export const ALL_SESSIONS_ENDED = '已退出全部会话';
export const SESSION_NOT_FOUND = '会话不存在';
