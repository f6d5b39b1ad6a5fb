import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { installMariaDb, mariaDbServer } from './mariadb-server.js';
import { freePort, scratchDir } from './servers.js';
import type { MysqlSettings } from './settings.js';
import { mysqlSettingsFromUrl } from './stores.js';

const WAIT_MS = 30_000;
const REPLICATION_USER = 'replication';

/** One server of the pair: root with an empty password, on loopback. */
interface ReplicationNode {
  readonly host: string;
  readonly port: number;
  /** `mysql://root@127.0.0.1:<port>`, as `createTestDatabase` takes it. */
  readonly url: string;
  /** The settings for `database` on this server. */
  settings(database: string): MysqlSettings;
}

export interface TestMariaDbReplication {
  readonly primary: ReplicationNode;
  /** Read-only, replicating everything the primary logs (GTID, row-based). */
  readonly replica: ReplicationNode;
  /** STOP SLAVE SQL_THREAD: the replica still receives the primary's changes but applies none. */
  stopReplicaSqlThread(): Promise<void>;
  startReplicaSqlThread(): Promise<void>;
  /** Ends the replica's process at once (SIGKILL), as a crash would. */
  killReplica(): Promise<void>;
  /** Starts the replica again on its port and data; resolves once its replication threads run. */
  restartReplica(): Promise<void>;
  /** Ends the primary's process at once (SIGKILL), as a crash would. */
  killPrimary(): Promise<void>;
  /** Starts the primary again on its port and data; resolves once the replica is connected to it. */
  restartPrimary(): Promise<void>;
  /**
   * Resolves once the replica has applied every transaction the primary has
   * logged so far (MASTER_GTID_WAIT); throws when that takes over `timeoutMs`.
   */
  replicaCaughtUp(timeoutMs?: number): Promise<void>;
  /** Ends both processes and removes their data. */
  stop(): Promise<void>;
}

async function query(port: number, sql: string, values: unknown[] = []) {
  const conn = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
  try {
    const [rows] = await conn.query(sql, values);
    return rows as Record<string, unknown>[];
  } finally {
    await conn.end();
  }
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  let last: unknown = 'no answer';
  for (;;) {
    try {
      if (await condition()) return;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: timed out (${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function node(port: number): ReplicationNode {
  const url = `mysql://root@127.0.0.1:${port}`;
  return {
    host: '127.0.0.1',
    port,
    url,
    settings: (database) => mysqlSettingsFromUrl(url, database),
  };
}

/**
 * Starts a MariaDB primary (binary log, row format) and one read-only replica
 * on free loopback ports, as separate processes with data of their own,
 * replicating with GTIDs (`MASTER_USE_GTID=slave_pos`); resolves once the
 * replica runs and has caught up.
 */
export async function startMariaDbReplication(): Promise<TestMariaDbReplication> {
  const dir = await scratchDir('mariadb-replication');
  await installMariaDb(join(dir, 'primary', 'data'));
  // The replica starts as a copy of the freshly installed primary: one install instead of two.
  await cp(join(dir, 'primary', 'data'), join(dir, 'replica', 'data'), { recursive: true });
  const primaryPort = await freePort();
  const replicaPort = await freePort();
  // A commit reaches the operating system before it is acknowledged: a killed process loses none.
  const durable = '--innodb-flush-log-at-trx-commit=2';
  const primaryServer = mariaDbServer(join(dir, 'primary'), primaryPort, [
    '--server-id=1',
    '--log-bin=primary-bin',
    '--binlog-format=ROW',
    durable,
  ]);
  const replicaServer = mariaDbServer(join(dir, 'replica'), replicaPort, [
    '--server-id=2',
    '--read-only',
    '--relay-log-recovery',
    durable,
  ]);
  const slaveStatus = async () => (await query(replicaPort, 'SHOW SLAVE STATUS'))[0] ?? {};
  const replicationRuns = (io: string[]) =>
    until(async () => {
      const status = await slaveStatus();
      return status.Slave_SQL_Running === 'Yes' && io.includes(String(status.Slave_IO_Running));
    }, 'replication threads');
  const replicaCaughtUp = async (timeoutMs = WAIT_MS) => {
    const [primaryPosition] = await query(primaryPort, 'SELECT @@gtid_binlog_pos AS pos');
    const [reached] = await query(replicaPort, 'SELECT MASTER_GTID_WAIT(?, ?) AS code', [
      primaryPosition?.pos,
      timeoutMs / 1000,
    ]);
    if (reached?.code !== 0)
      throw new Error(`replica did not reach ${primaryPosition?.pos} within ${timeoutMs} ms`);
  };
  const stop = async () => {
    await Promise.all([primaryServer.kill(), replicaServer.kill()]);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all([primaryServer.start(), replicaServer.start()]);
    const password = 'replication-password';
    await query(primaryPort, `CREATE USER ?@'127.0.0.1' IDENTIFIED BY ?`, [
      REPLICATION_USER,
      password,
    ]);
    await query(primaryPort, `GRANT REPLICATION SLAVE ON *.* TO ?@'127.0.0.1'`, [REPLICATION_USER]);
    // A retry every second (not every 60), so a restarted primary is found again at once.
    await query(
      replicaPort,
      `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primaryPort},
       MASTER_USER=?, MASTER_PASSWORD=?, MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1`,
      [REPLICATION_USER, password],
    );
    await query(replicaPort, 'START SLAVE');
    await replicationRuns(['Yes']);
    await replicaCaughtUp();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    primary: node(primaryPort),
    replica: node(replicaPort),
    stopReplicaSqlThread: async () => void (await query(replicaPort, 'STOP SLAVE SQL_THREAD')),
    startReplicaSqlThread: async () => void (await query(replicaPort, 'START SLAVE SQL_THREAD')),
    killReplica: () => replicaServer.kill(),
    async restartReplica() {
      await replicaServer.start();
      // The primary may be down meanwhile: the receiving thread then keeps trying to connect.
      await replicationRuns(['Yes', 'Connecting']);
    },
    killPrimary: () => primaryServer.kill(),
    async restartPrimary() {
      await primaryServer.start();
      await replicationRuns(['Yes']);
    },
    replicaCaughtUp,
    stop,
  };
}
