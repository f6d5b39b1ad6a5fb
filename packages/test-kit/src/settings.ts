/**
 * Connection settings as the test kit hands them out. They have the shape of
 * `@svc/common`'s settings, so they pass straight into its factories, without
 * the test kit depending on the production package.
 */
export interface MysqlSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export interface RedisAddress {
  host: string;
  port: number;
}

export interface RedisSettings extends RedisAddress {
  url: string;
  password?: string;
  db: number;
}
