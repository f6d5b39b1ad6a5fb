import {
  ConfigError,
  createMysqlPool,
  type Database,
  migrate,
  type Pool,
  type RowDataPacket,
} from '@svc/common';
import { createTestDatabase, startMariaDbServer, type TestServer } from '@svc/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPlatformConfig } from '../src/config.js';
import { migrationsDir } from '../src/migrations-dir.js';
import { gtidStatements } from '../src/store/replicas/gtid.js';
import { replicaSet } from '../src/store/replicas/replica-set.js';
import { sharedRead } from '../src/store/shared-read.js';
import { addMerchant, createRecordedApp, testLogs } from './support/test-app.js';

/**
 * MYSQL_REPLICA_HOSTS and REPLICA_WAIT_MS as the config reads them, the
 * shared position read, the GTID statements each server flavour gets (MySQL
 * 8 has no server here: its choice is checked against a primary's answers),
 * and the lists without replicas. The lists on real replicas are in
 * test/reliability/read-replicas.test.ts.
 */

describe('replica settings', () => {
  it('reads no replica when MYSQL_REPLICA_HOSTS is unset or empty, and waits 100 ms by default', () => {
    for (const env of [{}, { MYSQL_REPLICA_HOSTS: '' }]) {
      expect(loadPlatformConfig(env)).toMatchObject({
        MYSQL_REPLICA_HOSTS: [],
        REPLICA_WAIT_MS: 100,
      });
    }
  });

  it('reads host:port entries separated by commas, spaces around them allowed', () => {
    const config = loadPlatformConfig({
      MYSQL_REPLICA_HOSTS: 'replica-1:3306, 10.0.0.7:3307',
      REPLICA_WAIT_MS: '250',
    });
    expect(config.MYSQL_REPLICA_HOSTS).toEqual([
      { host: 'replica-1', port: 3306 },
      { host: '10.0.0.7', port: 3307 },
    ]);
    expect(config.REPLICA_WAIT_MS).toBe(250);
  });

  it.each([
    'replica-1',
    'replica-1:',
    ':3306',
    'replica-1:3306,',
    'replica-1:70000',
    'replica-1:0',
    'user@replica:3306',
  ])('refuses MYSQL_REPLICA_HOSTS=%j, naming the variable', (hosts) => {
    expect(() => loadPlatformConfig({ MYSQL_REPLICA_HOSTS: hosts })).toThrow(
      `MYSQL_REPLICA_HOSTS: expected host:port entries separated by commas (got "${hosts}")`,
    );
  });

  it.each(['0', '-1', '60001', 'soon'])('refuses REPLICA_WAIT_MS=%j', (wait) => {
    expect(() => loadPlatformConfig({ REPLICA_WAIT_MS: wait })).toThrow(
      `REPLICA_WAIT_MS: expected an integer from 1 to 60000 (got "${wait}")`,
    );
  });
});

describe('shared position reads', () => {
  /** A read whose answers the test gives, in order. */
  function controlledRead() {
    const pending: ((value: number) => void)[] = [];
    const read = () => new Promise<number>((resolve) => pending.push(resolve));
    return { read, pending };
  }

  it('gives callers that come while a read runs the next read, one for all of them', async () => {
    const { read, pending } = controlledRead();
    const shared = sharedRead(read);
    const first = shared();
    const second = shared();
    const third = shared();
    expect(pending).toHaveLength(1);
    pending[0]?.(1);
    expect(await first).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending).toHaveLength(2);
    pending[1]?.(2);
    expect([await second, await third]).toEqual([2, 2]);
  });

  it('fails the callers waiting for the next read with the error of the read they waited on', async () => {
    let calls = 0;
    let fail: (err: Error) => void = () => {};
    const shared = sharedRead(() => {
      calls++;
      return new Promise<number>((_resolve, reject) => {
        fail = reject;
      });
    });
    const first = shared();
    const waiting = [shared(), shared()];
    fail(new Error('the store hangs'));
    await expect(first).rejects.toThrow('the store hangs');
    for (const caller of waiting) await expect(caller).rejects.toThrow('the store hangs');
    // One read for all three: a second would have doubled the wait of those who came during the first.
    expect(calls).toBe(1);
  });

  it('starts afresh after a read failed', async () => {
    let calls = 0;
    const shared = sharedRead(async () => {
      calls++;
      if (calls === 1) throw new Error('down');
      return calls;
    });
    await expect(shared()).rejects.toThrow('down');
    expect(await shared()).toBe(2);
  });
});

describe("GTID statements by the primary's flavour", () => {
  /** A primary that answers VERSION() with `version` and its position with `position`; the SQL it was sent. */
  function primaryAnswering(version: string, position: string) {
    const sent: string[] = [];
    const select = async (sql: string) => {
      sent.push(sql);
      return [/VERSION\(\)/.test(sql) ? { version } : { position }];
    };
    return { db: { select } as unknown as Database, sent };
  }

  it('uses gtid_executed and WAIT_FOR_EXECUTED_GTID_SET on MySQL 8', async () => {
    const primary = primaryAnswering('8.0.36', '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77');
    const gtid = await gtidStatements(primary.db, 'mysql:3306');
    expect(gtid).toEqual({
      position: 'SELECT @@GLOBAL.gtid_executed AS position',
      wait: 'SELECT WAIT_FOR_EXECUTED_GTID_SET(?, ?) AS code',
    });
    expect(primary.sent).toEqual(['SELECT VERSION() AS version', gtid.position]);
  });

  it('uses gtid_binlog_pos and MASTER_GTID_WAIT on MariaDB', async () => {
    const primary = primaryAnswering('10.11.19-MariaDB-0+deb12u1', '0-1-42');
    expect(await gtidStatements(primary.db, 'mariadb:3306')).toEqual({
      position: 'SELECT @@GLOBAL.gtid_binlog_pos AS position',
      wait: 'SELECT MASTER_GTID_WAIT(?, ?) AS code',
    });
  });

  it('refuses a MySQL 8 primary with GTIDs off (gtid_executed empty)', async () => {
    const primary = primaryAnswering('8.0.36', '');
    await expect(gtidStatements(primary.db, 'mysql:3306')).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('lists without replicas', () => {
  let server: TestServer;
  let pool: Pool;

  beforeAll(async () => {
    // A server of its own: its counters see only this file's statements.
    server = await startMariaDbServer();
    pool = await createMysqlPool({
      ...(await createTestDatabase(server.url)).settings,
      multipleStatements: true,
    });
    await migrate(pool, migrationsDir);
  });
  afterAll(async () => {
    await pool.end();
    await server.destroy();
  });

  const selects = async () => {
    const [[row]] = await pool.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Com_select'");
    return Number(row?.Value);
  };

  it('refuses replicas of a primary that logs no GTIDs, naming the variable and the fix', async () => {
    const { host, port, user, password, database } = (await createTestDatabase(server.url))
      .settings;
    await expect(
      replicaSet(pool, {
        primary: {
          host,
          port,
          user,
          password,
          database,
          poolSize: 2,
          connectTimeoutMs: 1000,
          queueLimit: 10,
        },
        hosts: [{ host: '127.0.0.1', port: 1 }],
        waitMs: 100,
        queryTimeoutMs: 1000,
      }),
    ).rejects.toThrow(
      `MYSQL_REPLICA_HOSTS is set, but the primary at ${host}:${port} logs no GTIDs: turn on its binary log (MariaDB: log_bin; MySQL: also gtid_mode=ON)`,
    );
  });

  it('sends each list statement alone, with no position read or wait', async () => {
    // Nothing kept, so every list reads its rows (and no stamps: see list-etags.test.ts).
    const app = createRecordedApp({
      pool,
      logger: testLogs('platform-replicas').logger,
      listCacheMb: 0,
    });
    await addMerchant(app);
    const before = await selects();
    for (let i = 0; i < 10; i++) {
      expect((await request(app).get('/api/merchant/list')).status).toBe(200);
    }
    // A page is its rows and its total: two statements.
    expect((await request(app).get('/api/merchant/list?page=1&pageSize=5')).status).toBe(200);
    expect((await selects()) - before).toBe(12);
  });
});
