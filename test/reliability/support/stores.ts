import type { MysqlSettings } from '@svc/common';

/** The MYSQL_* variables that point a service process at a test database. */
export function mysqlVariables(settings: MysqlSettings): Record<string, string> {
  return {
    MYSQL_HOST: settings.host,
    MYSQL_PORT: String(settings.port),
    MYSQL_USER: settings.user,
    MYSQL_PASSWORD: settings.password,
    MYSQL_DATABASE: settings.database,
  };
}
