import { createDatabase, openMysqlPool, type Pool } from '@svc/common';
import { gtidStatements } from './gtid.js';
import { replicaDelay } from './replica-delay.js';
import { replicaReads } from './replica-reads.js';

interface ReplicaSetSettings {
  /** The primary's settings, whose user, password and database the replicas share. */
  primary: {
    host: string;
    port: number;
    user: string;
    password: string;
    database: string;
    poolSize: number;
    connectTimeoutMs: number;
    queueLimit: number;
  };
  hosts: { host: string; port: number }[];
  waitMs: number;
  queryTimeoutMs: number;
}

/**
 * MYSQL_REPLICA_HOSTS at work: a pool per replica, the list reads routed to
 * them (replica-reads.ts), and each one's delay for the metrics.
 */
export async function replicaSet(primaryPool: Pool, settings: ReplicaSetSettings) {
  const { primary, hosts, waitMs, queryTimeoutMs } = settings;
  const primaryDb = createDatabase(primaryPool, queryTimeoutMs);
  const gtid = await gtidStatements(primaryDb, `${primary.host}:${primary.port}`);
  const pool = (host: string, port: number, size: number) =>
    openMysqlPool({ ...primary, host, port, poolSize: size });
  const replicas = hosts.map(({ host, port }) => ({
    name: `${host}:${port}`,
    pool: pool(host, port, primary.poolSize),
  }));
  // Position reads share one at a time (see shared-read.ts): one connection serves them.
  const positions = pool(primary.host, primary.port, 1);
  const routed = replicaReads({
    primary: primaryDb,
    positions: createDatabase(positions, queryTimeoutMs),
    replicas: replicas.map((replica) => replica.pool),
    gtid,
    waitMs,
    queryTimeoutMs,
  });
  return {
    ...routed,
    names: replicas.map(({ name }) => name),
    delays: replicas.map(({ name, pool }) => ({ name, delay: replicaDelay(pool) })),
    end: () =>
      Promise.all([positions, ...replicas.map((replica) => replica.pool)].map((p) => p.end())),
  };
}

export type ReplicaSet = Awaited<ReturnType<typeof replicaSet>>;
