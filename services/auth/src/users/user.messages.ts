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

/** New passwords (register, change password) refused by password-strength.ts. */
export const PASSWORD_HAS_USERNAME = '密码不能包含用户名';
export const PASSWORD_TOO_COMMON = '密码过于常见,请换一个';
export const PASSWORD_TOO_GUESSABLE = '密码过于简单,容易被猜到,请换一个更长或更少规律的密码';

/** A new password's refusals (password-strength.ts): the username in it, a common one, or guessed too soon. */
export const NEW_PASSWORD_REFUSALS = [
  PASSWORD_HAS_USERNAME,
  PASSWORD_TOO_COMMON,
  PASSWORD_TOO_GUESSABLE,
];
