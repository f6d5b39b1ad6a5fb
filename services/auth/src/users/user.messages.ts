/**
 * The texts the user routes answer with, in one place so the handlers and the
 * OpenAPI document cannot disagree.
 */
export const REGISTERED = '注册成功';
export const LOGGED_IN = '登录成功';
export const LOGGED_OUT = '已退出登录';
export const PASSWORD_CHANGED = '密码修改成功,请重新登录';
export const VERIFIED = 'ok';

export const USERNAME_TAKEN = '用户名已存在';
export const WRONG_CREDENTIALS = '用户名或密码错误';
export const TOO_MANY_FAILURES = '登录失败次数过多,请稍后再试';
export const WRONG_OLD_PASSWORD = '原密码错误';
