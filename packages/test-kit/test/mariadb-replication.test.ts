import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type MysqlSettings,
  startMariaDbReplication,
  type TestMariaDbReplication,
} from '../src/index.js';

const database = 'replicated';

/** One statement on a connection of its own, so a killed server leaves no broken pool behind. */
async function run(settings: mysql.ConnectionOptions, sql: string): Promise<unknown> {
  const conn = await mysql.createConnection(settings);
  try {
    const [rows] = await conn.query(sql);
    return rows;
  } finally {
    await conn.end();
  }
}

describe('MariaDB primary and replica', () => {
  let replication: TestMariaDbReplication;
  let primary: MysqlSettings;
  let replica: MysqlSettings;
  const ids = async (settings: MysqlSettings) =>
    ((await run(settings, 'SELECT id FROM t ORDER BY id')) as { id: number }[]).map((r) => r.id);

  beforeAll(async () => {
    replication = await startMariaDbReplication();
    primary = replication.primary.settings(database);
    replica = replication.replica.settings(database);
    const { database: _, ...server } = primary;
    await run(server, `CREATE DATABASE ${database}`);
    await run(primary, 'CREATE TABLE t (id INT PRIMARY KEY)');
  });

  afterAll(async () => {
    await replication?.stop();
  });

  it('copies a row written on the primary to the replica, a read-only server of its own', async () => {
    await run(primary, 'INSERT INTO t VALUES (1)');
    await replication.replicaCaughtUp();
    expect(await ids(replica)).toEqual([1]);
    expect(replication.replica.port).not.toBe(replication.primary.port);
    expect(await run(replica, 'SELECT @@read_only AS readOnly, @@server_id AS id')).toEqual([
      { readOnly: 1, id: 2 },
    ]);
  });

  it('applies nothing while the SQL thread is stopped, and everything once it runs again', async () => {
    await replication.stopReplicaSqlThread();
    await run(primary, 'INSERT INTO t VALUES (2)');
    await expect(replication.replicaCaughtUp(300)).rejects.toThrow(/did not reach/);
    expect(await ids(replica)).toEqual([1]);
    await replication.startReplicaSqlThread();
    await replication.replicaCaughtUp();
    expect(await ids(replica)).toEqual([1, 2]);
  });

  it('catches up after the replica is killed and started again on its port', async () => {
    await replication.killReplica();
    await expect(ids(replica)).rejects.toThrow();
    await run(primary, 'INSERT INTO t VALUES (3)');
    await replication.restartReplica();
    await replication.replicaCaughtUp();
    expect(await ids(replica)).toEqual([1, 2, 3]);
  });

  it('keeps answering reads on the replica while the primary is down, and follows it after', async () => {
    await replication.killPrimary();
    await expect(ids(primary)).rejects.toThrow();
    expect(await ids(replica)).toEqual([1, 2, 3]);
    await replication.restartPrimary();
    expect(await ids(primary)).toEqual([1, 2, 3]);
    await run(primary, 'INSERT INTO t VALUES (4)');
    await replication.replicaCaughtUp();
    expect(await ids(replica)).toEqual([1, 2, 3, 4]);
  });
});

describe('MariaDB primary and two replicas', () => {
  let replication: TestMariaDbReplication;

  beforeAll(async () => {
    replication = await startMariaDbReplication({ replicas: 2 });
    const { database: _, ...server } = replication.primary.settings(database);
    await run(server, `CREATE DATABASE ${database}`);
    await run(replication.primary.settings(database), 'CREATE TABLE t (id INT PRIMARY KEY)');
  });

  afterAll(async () => {
    await replication?.stop();
  });

  it('copies every write to each replica, a server of its own; one stopped leaves the other applying', async () => {
    const [first, second] = replication.replicas.map((node) => node.settings(database)) as [
      MysqlSettings,
      MysqlSettings,
    ];
    const ids = async (settings: MysqlSettings) =>
      ((await run(settings, 'SELECT id FROM t ORDER BY id')) as { id: number }[]).map((r) => r.id);
    await run(replication.primary.settings(database), 'INSERT INTO t VALUES (1)');
    await replication.replicaCaughtUp();
    expect([await ids(first), await ids(second)]).toEqual([[1], [1]]);
    expect(replication.replica.port).toBe(first.port);
    expect(new Set([replication.primary.port, first.port, second.port]).size).toBe(3);

    await replication.stopReplicaSqlThread(1);
    await run(replication.primary.settings(database), 'INSERT INTO t VALUES (2)');
    await expect.poll(() => ids(first)).toEqual([1, 2]);
    expect(await ids(second)).toEqual([1]);
    await replication.startReplicaSqlThread(1);
    await replication.replicaCaughtUp();
    expect(await ids(second)).toEqual([1, 2]);
  });
});
