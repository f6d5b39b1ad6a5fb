import mysql, { type Pool } from 'mysql2/promise';

interface ReadPoolSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  size: number;
  connectTimeoutMs: number;
  queueLimit: number;
}

/**
 * A pool of the connections common's createMysqlPool opens, made without
 * its startup check: a replica that is down at startup is only tried later.
 */
export function createReadPool(settings: ReadPoolSettings): Pool {
  const { host, port, user, password, database } = settings;
  return mysql
    .createPool({
      host,
      port,
      user,
      password,
      database,
      connectTimeout: settings.connectTimeoutMs,
      connectionLimit: settings.size,
      queueLimit: settings.queueLimit,
      charset: 'utf8mb4_unicode_ci',
      enableKeepAlive: true,
      timezone: 'Z',
    })
    .on('connection', (conn) => {
      conn.query("SET time_zone = '+00:00'");
    });
}
