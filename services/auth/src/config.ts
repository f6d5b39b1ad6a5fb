import { httpEnv, loadConfig, mysqlEnv, redisEnv } from '@svc/common';
import { z } from 'zod';

export const configSchema = z.object({
  ...httpEnv(3000),
  ...mysqlEnv('judge'),
  ...redisEnv,
});

export type AuthConfig = z.infer<typeof configSchema>;

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  return loadConfig(configSchema, env);
}
