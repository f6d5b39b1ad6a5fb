/** The texts of the second factor's routes, in one place for the handlers and the OpenAPI document. */
export const TWO_FACTOR_REQUIRED = '请输入两步验证码';
export const TOTP_SET_UP = '请用验证器扫描二维码,再提交验证码确认';
export const TOTP_ENABLED = '两步验证已开启,请保存恢复码';
export const TOTP_DISABLED = '两步验证已关闭';
export const RECOVERY_CODES_RENEWED = '恢复码已更新,旧恢复码已失效';

export const TOTP_ALREADY_ON = '两步验证已开启,请先关闭';
export const TOTP_NOT_SET_UP = '请先设置两步验证';
export const TOTP_NOT_ON = '两步验证未开启';
export const WRONG_CODE = '验证码错误';
export const WRONG_PASSWORD_OR_CODE = '密码或验证码错误';
export const CHALLENGE_GONE = '验证已失效,请重新登录';
export const NOT_UNDER_MD5 =
  'TOKEN_SCHEME=md5 下令牌可由用户名和密码算出,两步验证保护不了账户,无法开启';
