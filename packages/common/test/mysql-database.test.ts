import { createTestDatabase, freePort, type TestDatabase } from '@svc/test-kit';
import mysql, { type Pool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DuplicateEntryError,
  LockConflictError,
  MissingReferenceError,
  StoreUnavailableError,
} from '../src/errors.js';
import { createDatabase } from '../src/mysql-database.js';
import { createMysqlPool } from '../src/mysql-settings.js';

describe('createDatabase', () => {
  let test: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    test = await createTestDatabase();
    pool = await createMysqlPool({ ...test.settings, poolSize: 2, multipleStatements: true });
    await pool.query(
      'CREATE TABLE parents (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(10) UNIQUE)',
    );
    await pool.query(
      'CREATE TABLE children (id INT AUTO_INCREMENT PRIMARY KEY, parent_id INT NOT NULL, FOREIGN KEY (parent_id) REFERENCES parents (id))',
    );
  });
  afterAll(async () => {
    await pool.end();
    await test.drop();
  });

  it('reads rows as objects or arrays, writes, and runs a transaction of statements', async () => {
    const db = createDatabase(pool, 2000);
    const written = await db.write('INSERT INTO parents (name) VALUES (?)', ['a']);
    expect(written.affectedRows).toBe(1);
    const [, child] = (await db.transaction([
      { sql: 'INSERT INTO parents (name) VALUES (?)', values: ['b'] },
      { sql: 'INSERT INTO children (parent_id) VALUES (LAST_INSERT_ID())', values: [] },
    ])) as { affectedRows: number }[];
    expect(child?.affectedRows).toBe(1);
    expect(await db.select('SELECT name FROM parents ORDER BY id')).toEqual([
      { name: 'a' },
      { name: 'b' },
    ]);
    expect(
      await db.select('SELECT name FROM parents ORDER BY id', [], { rowsAsArray: true }),
    ).toEqual([['a'], ['b']]);
    expect(db.connections).toBe(2);
  });

  it('names a taken unique key and a foreign key that finds no row, and leaves a wrong query as it is', async () => {
    const db = createDatabase(pool, 2000);
    await db.write('INSERT INTO parents (name) VALUES (?)', ['taken']);
    await expect(
      db.write('INSERT INTO parents (name) VALUES (?)', ['taken']),
    ).rejects.toBeInstanceOf(DuplicateEntryError);
    const missing = await db
      .write('INSERT INTO children (parent_id) VALUES (?)', [999_999])
      .catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(MissingReferenceError);
    expect(missing).toMatchObject({ what: undefined, cause: { errno: 1452 } });
    await expect(
      db.transaction([{ sql: 'INSERT INTO children (parent_id) VALUES (?)', values: [999_999] }]),
    ).rejects.toBeInstanceOf(MissingReferenceError);
    await expect(db.select('SELECT nothing FROM parents')).rejects.toMatchObject({
      code: 'ER_BAD_FIELD_ERROR',
    });
  });

  it('names a lock that another transaction holds a LockConflictError', async () => {
    const db = createDatabase(pool, 5000);
    await db.write('INSERT INTO parents (name) VALUES (?)', ['held']);
    const holder = await mysql.createConnection({ ...test.settings, multipleStatements: true });
    try {
      await holder.query("START TRANSACTION; SELECT * FROM parents WHERE name = 'held' FOR UPDATE");
      await expect(
        db.transaction([
          { sql: "SELECT id FROM parents WHERE name = 'held' FOR UPDATE NOWAIT", values: [] },
        ]),
      ).rejects.toBeInstanceOf(LockConflictError);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });

  it('is a StoreUnavailableError when the server does not answer in time or at all', async () => {
    const db = createDatabase(pool, 100);
    const slow = await db.select('SELECT SLEEP(1)').catch((err: unknown) => err);
    expect(slow).toBeInstanceOf(StoreUnavailableError);
    expect(slow).toMatchObject({ store: 'mysql' });

    const nowhere = mysql.createPool({ host: '127.0.0.1', port: await freePort(), user: 'root' });
    try {
      await expect(createDatabase(nowhere).select('SELECT 1')).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await expect(createDatabase(nowhere).hold()).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await nowhere.end();
    }
  });
});
