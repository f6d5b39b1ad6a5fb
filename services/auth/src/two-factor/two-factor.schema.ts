import { z } from 'zod';
import { sized } from '../users/user.schema.js';

/** A TOTP code (six digits) or a recovery code, as typed. */
const code = sized('验证码', 1, 64);

export const confirmBody = z.object({ code });

export const secondStepBody = z.object({
  challenge: z
    .string({
      error: (issue) => (issue.input === undefined ? '缺少challenge' : 'challenge须为字符串'),
    })
    .regex(/^[0-9a-f]{64}$/, 'challenge须为登录给出的64位十六进制串'),
  code,
});

/** What turning TOTP off and renewing the recovery codes take: the password and a current code. */
export const passwordAndCodeBody = z.object({
  password: sized('密码', 1, 128),
  code,
});
