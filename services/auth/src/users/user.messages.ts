/**
 * The texts the user routes answer with, in one place so the handlers and the
 * OpenAPI document cannot disagree.
 */
export const REGISTERED = '注册成功';
export const LOGGED_IN = '登录成功';
export const FOUND = '获取成功';
export const LOGGED_OUT = '已退出登录';
export const PASSWORD_CHANGED = '密码修改成功,请重新登录';
export const VERIFIED = 'ok';
export const SESSION_ENDED = '会话已结束';
export const OTHER_SESSIONS_ENDED = '已退出其他会话';
export const ALL_SESSIONS_ENDED = '已退出全部会话';

export const USERNAME_TAKEN = '用户名已存在';
export const WRONG_CREDENTIALS = '用户名或密码错误';
export const TOO_MANY_FAILURES = '登录失败次数过多,请稍后再试';
export const WRONG_OLD_PASSWORD = '原密码错误';
export const SESSION_NOT_FOUND = '会话不存在';
export const NOT_AN_OBJECT = 'body: 请求体须为JSON对象';
