import { createTestDatabase, startFaultProxy, type TestDatabase } from '@svc/test-kit';
import mysql, { type Pool, type RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockConflictError, OutcomeUnknownError, StoreUnavailableError } from '../src/errors.js';
import { createDatabase } from '../src/mysql-database.js';
import { createMysqlPool } from '../src/mysql-settings.js';

/*
 * What the database layer answers is what happened on the server: a write
 * the server gave up wrote nothing, a write stopped past the service's bound
 * is stopped on the server before the answer, and a write whose answer never
 * came is an outcome unknown, never a failure.
 */

let test: TestDatabase;
let direct: Pool;
let holder: mysql.Connection;

beforeAll(async () => {
  test = await createTestDatabase();
  direct = await createMysqlPool({ ...test.settings, multipleStatements: true });
  await direct.query('CREATE TABLE rows_written (id INT PRIMARY KEY, note VARCHAR(20))');
  await direct.query("INSERT INTO rows_written VALUES (1, 'held')");
  holder = await mysql.createConnection({ ...test.settings, multipleStatements: true });
});
afterAll(async () => {
  await holder.end();
  await direct.end();
  await test.drop();
});

const written = async (id: number) => {
  const [rows] = await direct.query<RowDataPacket[]>('SELECT note FROM rows_written WHERE id = ?', [
    id,
  ]);
  return rows[0]?.note as string | undefined;
};

async function holding<T>(work: () => Promise<T>): Promise<T> {
  await holder.query('START TRANSACTION; SELECT * FROM rows_written WHERE id = 1 FOR UPDATE');
  try {
    return await work();
  } finally {
    await holder.query('ROLLBACK');
  }
}

describe('a lock wait', () => {
  it("ends on the server at half the query bound: the server's session lock wait", async () => {
    const pool = await createMysqlPool({ ...test.settings, queryTimeoutMs: 4000 });
    try {
      const [[row]] = await pool.query<RowDataPacket[]>('SELECT @@innodb_lock_wait_timeout AS s');
      expect(row?.s).toBe(2);
    } finally {
      await pool.end();
    }
  });

  it("past the server's wait is a LockConflictError, and nothing of the transaction commits", async () => {
    const pool = await createMysqlPool({
      ...test.settings,
      queryTimeoutMs: 2000,
      multipleStatements: true,
    });
    const db = createDatabase(pool, 2000);
    try {
      const failure = await holding(async () => {
        const began = performance.now();
        const err = await db
          .transaction([
            { sql: "INSERT INTO rows_written VALUES (2, 'first')", values: [] },
            { sql: "UPDATE rows_written SET note = 'changed' WHERE id = 1", values: [] },
          ])
          .catch((e: unknown) => e);
        // The server's wait (1 s), not the service's bound (2 s).
        expect(performance.now() - began).toBeLessThan(1900);
        return err;
      });
      expect(failure).toBeInstanceOf(LockConflictError);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await written(2)).toBeUndefined();
      expect(await written(1)).toBe('held');
    } finally {
      await pool.end();
    }
  });

  it("past the service's own bound is stopped on the server before the failure is answered", async () => {
    const pool = await createMysqlPool({ ...test.settings, multipleStatements: true });
    // A server whose lock wait outlasts the service's bound.
    pool.pool.on('connection', (conn) => conn.query('SET innodb_lock_wait_timeout = 30'));
    const db = createDatabase(pool, 500);
    try {
      const failure = await holding(async () => {
        const err = await db
          .transaction([
            { sql: "INSERT INTO rows_written VALUES (3, 'first')", values: [] },
            { sql: "UPDATE rows_written SET note = 'changed' WHERE id = 1", values: [] },
          ])
          .catch((e: unknown) => e);
        // Stopped: no statement of it is left running on the server.
        const [running] = await direct.query<RowDataPacket[]>(
          "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE '%changed%' AND ID <> CONNECTION_ID()",
        );
        expect(running[0]?.n).toBe(0);
        return err;
      });
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await written(3)).toBeUndefined();
      expect(await written(1)).toBe('held');
    } finally {
      await pool.end();
    }
  });
});

describe('a connection cut', () => {
  let pool: Pool;
  let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
  beforeAll(async () => {
    proxy = await startFaultProxy({ target: test.settings });
    pool = await createMysqlPool({
      ...test.settings,
      host: proxy.host,
      port: proxy.port,
      multipleStatements: true,
    });
  });
  afterAll(async () => {
    await pool.end();
    await proxy.close();
  });

  it('after a write was sent is an outcome unknown: here it had committed', async () => {
    const db = createDatabase(pool, 2000);
    const fault = proxy.fault('VALUES (4,', 'cut-after');
    await expect(
      db.transaction([{ sql: "INSERT INTO rows_written VALUES (4, 'sent')", values: [] }]),
    ).rejects.toBeInstanceOf(OutcomeUnknownError);
    await fault.met;
    expect(await written(4)).toBe('sent');
  });

  it('of a single write sent as a prepared statement is an outcome unknown too', async () => {
    const db = createDatabase(pool, 2000);
    const fault = proxy.fault('INSERT INTO rows_written VALUES (?, ?)', 'cut-after', {
      next: true,
    });
    await expect(
      db.write('INSERT INTO rows_written VALUES (?, ?)', [5, 'sent']),
    ).rejects.toBeInstanceOf(OutcomeUnknownError);
    await fault.met;
    expect(await written(5)).toBe('sent');
  });

  it('of a read is the store unavailable: a read writes nothing', async () => {
    const db = createDatabase(pool, 2000);
    const fault = proxy.fault('SELECT note', 'cut-after');
    await expect(db.select('SELECT note FROM rows_written')).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await fault.met;
  });
});
