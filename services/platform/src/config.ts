import { httpEnv, intVar, loadConfig, mysqlEnv } from '@svc/common';
import { z } from 'zod';

/**
 * A Bearer token as RFC 6750 writes it (b64token): what `openssl rand -hex 32`
 * or base64 give. A token with spaces at its ends or other characters could
 * never arrive intact in an Authorization header.
 */
const B64TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

export const configSchema = z.object({
  ...httpEnv(8080),
  ...mysqlEnv('life_service'),
  /** Whole (unpaged) lists of each route that may hold a connection of the pool at once. */
  LIST_CONCURRENCY: intVar(2, 1, 1000),
  /** Shared order INSERTs (of up to 32 orders each) running at once. */
  INSERT_CONCURRENCY: intVar(2, 1, 1000),
  /** How long a create's Idempotency-Key is kept, from its first request: a day, at most 30. */
  IDEMPOTENCY_TTL_SECONDS: intVar(86_400, 1, 30 * 86_400),
  /** Unset or empty: the administrator routes are open, as the spec has them. */
  PLATFORM_ADMIN_TOKEN: z
    .string()
    .min(16, 'expected at least 16 characters')
    .regex(B64TOKEN, 'expected only A-Z a-z 0-9 - . _ ~ + / and = at the end')
    .optional(),
});

type PlatformConfig = z.infer<typeof configSchema>;

export function loadPlatformConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  return loadConfig(configSchema, env);
}
