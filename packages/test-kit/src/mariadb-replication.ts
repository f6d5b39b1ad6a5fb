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
  /** Read-only, replicating everything the primary logs (GTID, row-based): the first of `replicas`. */
  readonly replica: ReplicationNode;
  /** Every replica, as many as asked for. The methods below take a replica's index (0 by default). */
  readonly replicas: readonly ReplicationNode[];
  /** STOP SLAVE SQL_THREAD: the replica still receives the primary's changes but applies none. */
  stopReplicaSqlThread(index?: number): Promise<void>;
  startReplicaSqlThread(index?: number): Promise<void>;
  /** Ends the replica's process at once (SIGKILL), as a crash would. */
  killReplica(index?: number): Promise<void>;
  /** Starts the replica again on its port and data; resolves once its replication threads run. */
  restartReplica(index?: number): Promise<void>;
  /** Ends the primary's process at once (SIGKILL), as a crash would. */
  killPrimary(): Promise<void>;
  /** Starts the primary again on its port and data; resolves once the replica is connected to it. */
  restartPrimary(): Promise<void>;
  /**
   * Resolves once every replica has applied every transaction the primary has
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
 * Starts a MariaDB primary (binary log, row format) and `replicas` read-only
 * replicas (one by default) on free loopback ports, as separate processes with
 * data of their own, replicating with GTIDs (`MASTER_USE_GTID=slave_pos`);
 * resolves once every replica runs and has caught up.
 */
export async function startMariaDbReplication({
  replicas = 1,
} = {}): Promise<TestMariaDbReplication> {
  const dir = await scratchDir('mariadb-replication');
  await installMariaDb(join(dir, 'primary', 'data'));
  const names = Array.from({ length: replicas }, (_, i) =>
    i === 0 ? 'replica' : `replica-${i + 1}`,
  );
  // Each replica starts as a copy of the freshly installed primary: one install instead of several.
  for (const name of names) {
    await cp(join(dir, 'primary', 'data'), join(dir, name, 'data'), { recursive: true });
  }
  const primaryPort = await freePort();
  const replicaPorts: number[] = [];
  for (const _name of names) replicaPorts.push(await freePort());
  // A commit reaches the operating system before it is acknowledged: a killed process loses none.
  const durable = '--innodb-flush-log-at-trx-commit=2';
  const primaryServer = mariaDbServer(join(dir, 'primary'), primaryPort, [
    '--server-id=1',
    '--log-bin=primary-bin',
    '--binlog-format=ROW',
    durable,
  ]);
  const replicaServers = names.map((name, i) =>
    mariaDbServer(join(dir, name), replicaPorts[i] as number, [
      `--server-id=${i + 2}`,
      '--read-only',
      '--relay-log-recovery',
      durable,
    ]),
  );
  const portOf = (index: number) => {
    const port = replicaPorts[index];
    if (port === undefined) throw new Error(`no replica ${index}`);
    return port;
  };
  const serverOf = (index: number) => replicaServers[index] as (typeof replicaServers)[number];
  const slaveStatus = async (port: number) => (await query(port, 'SHOW SLAVE STATUS'))[0] ?? {};
  const replicationRuns = (port: number, io: string[]) =>
    until(async () => {
      const status = await slaveStatus(port);
      return status.Slave_SQL_Running === 'Yes' && io.includes(String(status.Slave_IO_Running));
    }, 'replication threads');
  const replicaCaughtUp = async (timeoutMs = WAIT_MS) => {
    const [primaryPosition] = await query(primaryPort, 'SELECT @@gtid_binlog_pos AS pos');
    for (const port of replicaPorts) {
      const [reached] = await query(port, 'SELECT MASTER_GTID_WAIT(?, ?) AS code', [
        primaryPosition?.pos,
        timeoutMs / 1000,
      ]);
      if (reached?.code !== 0)
        throw new Error(`replica did not reach ${primaryPosition?.pos} within ${timeoutMs} ms`);
    }
  };
  const stop = async () => {
    await Promise.all([primaryServer.kill(), ...replicaServers.map((server) => server.kill())]);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all([primaryServer.start(), ...replicaServers.map((server) => server.start())]);
    const password = 'replication-password';
    await query(primaryPort, `CREATE USER ?@'127.0.0.1' IDENTIFIED BY ?`, [
      REPLICATION_USER,
      password,
    ]);
    await query(primaryPort, `GRANT REPLICATION SLAVE ON *.* TO ?@'127.0.0.1'`, [REPLICATION_USER]);
    for (const port of replicaPorts) {
      // A retry every second (not every 60), so a restarted primary is found again at once.
      await query(
        port,
        `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primaryPort},
         MASTER_USER=?, MASTER_PASSWORD=?, MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1`,
        [REPLICATION_USER, password],
      );
      await query(port, 'START SLAVE');
      await replicationRuns(port, ['Yes']);
    }
    await replicaCaughtUp();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    primary: node(primaryPort),
    replica: node(portOf(0)),
    replicas: replicaPorts.map(node),
    stopReplicaSqlThread: async (index = 0) =>
      void (await query(portOf(index), 'STOP SLAVE SQL_THREAD')),
    startReplicaSqlThread: async (index = 0) =>
      void (await query(portOf(index), 'START SLAVE SQL_THREAD')),
    killReplica: (index = 0) => serverOf(index).kill(),
    async restartReplica(index = 0) {
      await serverOf(index).start();
      // The primary may be down meanwhile: the receiving thread then keeps trying to connect.
      await replicationRuns(portOf(index), ['Yes', 'Connecting']);
    },
    killPrimary: () => primaryServer.kill(),
    async restartPrimary() {
      await primaryServer.start();
      for (const port of replicaPorts) await replicationRuns(port, ['Yes']);
    },
    replicaCaughtUp,
    stop,
  };
}
