import { z } from 'zod';

/** Characters as a person counts them (code points), not UTF-16 units. */
function length(value: string): number {
  return [...value].length;
}

function text(label: string) {
  return z.string({
    error: (issue) => (issue.input === undefined ? `缺少${label}` : `${label}须为字符串`),
  });
}

export function sized(label: string, min: number, max: number) {
  return (
    text(label)
      .refine(
        (value) => length(value) >= min && length(value) <= max,
        `${label}须为${min}到${max}个字符`,
      )
      // A refinement has no JSON Schema form; minLength and maxLength count code points too.
      .meta({ minLength: min, maxLength: max })
  );
}

/** New credentials follow today's rules. */
export const registerBody = z.object({
  username: text('用户名').regex(/^[A-Za-z0-9_.-]{3,32}$/, '用户名须为3到32位字母、数字或_.-'),
  password: sized('密码', 8, 128),
});

/** Old accounts predate the rules, so login only bounds the input. */
export const loginBody = z.object({
  username: sized('用户名', 1, 128),
  password: sized('密码', 1, 128),
});

export const changePasswordBody = z.object({
  oldPassword: sized('原密码', 1, 128),
  newPassword: sized('新密码', 8, 128),
});
