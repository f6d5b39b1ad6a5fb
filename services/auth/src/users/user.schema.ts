import { AppError } from '@svc/common';
import { z } from 'zod';
import { NOT_AN_OBJECT } from './user.messages.js';

/** Characters as a person counts them (code points), not UTF-16 units. */
function length(value: string): number {
  return [...value].length;
}

function text(label: string) {
  return z.string({
    error: (issue) => (issue.input === undefined ? `缺少${label}` : `${label}须为字符串`),
  });
}

function sized(label: string, min: number, max: number) {
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

/**
 * The body as the schema's type, or a 400 whose message names each bad field
 * by its JSON key (`body` when the body is not a JSON object at all).
 */
export function parseBody<S extends z.ZodObject>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError(400, NOT_AN_OBJECT);
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const message = result.error.issues
    .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    .join('; ');
  throw new AppError(400, message);
}
