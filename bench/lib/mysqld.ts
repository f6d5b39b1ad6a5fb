import { readFile } from 'node:fs/promises';
import mysql, { type RowDataPacket } from 'mysql2/promise';
import type { MysqlServer } from './platform-data.js';
import { cpuSeconds } from './server.js';

/**
 * The CPU seconds the bench's MySQL server has spent, read from /proc through
 * the pid file it names: the database's share of each request, measured on
 * the same loopback machine as the services.
 */
export async function mysqldCpu(server: MysqlServer): Promise<() => Promise<number>> {
  const conn = await mysql.createConnection(server);
  try {
    const [[row]] = await conn.query<RowDataPacket[]>('SELECT @@pid_file AS file');
    const pid = Number((await readFile(String(row?.file), 'utf8')).trim());
    return () => cpuSeconds(pid);
  } finally {
    await conn.end();
  }
}
