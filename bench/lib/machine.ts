import { availableParallelism, cpus, totalmem } from 'node:os';
import { Redis } from 'ioredis';
import mysql, { type RowDataPacket } from 'mysql2/promise';
import { mysqlServerFrom } from './platform-data.js';
import type { BenchSettings } from './settings.js';

/** What a run's figures were measured on; they mean little without it. */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  /** `VERSION()` of the MySQL server at BENCH_MYSQL_URL; null when it did not answer. */
  mysql: string | null;
  /** `redis_version` of the Redis at BENCH_REDIS_URL; null when it did not answer. */
  redis: string | null;
}

async function mysqlVersion(url: string): Promise<string | null> {
  try {
    const conn = await mysql.createConnection({ ...mysqlServerFrom(url), connectTimeout: 2_000 });
    try {
      const [[row]] = await conn.query<RowDataPacket[]>('SELECT VERSION() AS version');
      return String(row?.version);
    } finally {
      await conn.end();
    }
  } catch {
    return null;
  }
}

async function redisVersion(url: string): Promise<string | null> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    return /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? null;
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

/** The CPU, memory and Node of this process's machine, and the versions of the stores the run used. */
export async function describeMachine(settings: BenchSettings): Promise<Machine> {
  const [mysqlServer, redisServer] = await Promise.all([
    mysqlVersion(settings.mysqlUrl),
    redisVersion(settings.redisUrl),
  ]);
  return {
    cpu: cpus()[0]?.model.trim() || 'unknown',
    cores: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    mysql: mysqlServer,
    redis: redisServer,
  };
}
