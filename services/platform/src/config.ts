import { httpEnv, loadConfig, mysqlEnv } from '@svc/common';
import { z } from 'zod';

export const configSchema = z.object({
  ...httpEnv(8080),
  ...mysqlEnv('life_service'),
});

export type PlatformConfig = z.infer<typeof configSchema>;

export function loadPlatformConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  return loadConfig(configSchema, env);
}
