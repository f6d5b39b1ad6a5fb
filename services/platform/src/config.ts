import { httpEnv, intVar, loadConfig, mysqlEnv } from '@svc/common';
import { z } from 'zod';

export const configSchema = z.object({
  ...httpEnv(8080),
  ...mysqlEnv('life_service'),
  MYSQL_QUERY_TIMEOUT_MS: intVar(5000, 100, 600_000),
});

export type PlatformConfig = z.infer<typeof configSchema>;

export function loadPlatformConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  return loadConfig(configSchema, env);
}
