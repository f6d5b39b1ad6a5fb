import { fileURLToPath } from 'node:url';
import { createTestDatabase, freePort, type TestDatabase } from '@svc/test-kit';
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnreachableError } from '../src/errors.js';
import { migrate, splitStatements } from '../src/migrate.js';
import { isMysqlUnavailable } from '../src/mysql-failures.js';
import { createMysqlPool } from '../src/mysql-settings.js';
import { queryWithin, transactionWithin } from '../src/mysql-statement.js';

const migrations = fileURLToPath(new URL('./fixtures/migrations', import.meta.url));

describe('splitStatements', () => {
  it('splits on semicolons that end a line and drops comment lines', () => {
    expect(
      splitStatements('-- note\nCREATE TABLE a (x INT);\n\nINSERT INTO a VALUES (1);\n'),
    ).toEqual(['CREATE TABLE a (x INT)', 'INSERT INTO a VALUES (1)']);
    expect(splitStatements("INSERT INTO a VALUES ('x; y');")).toEqual([
      "INSERT INTO a VALUES ('x; y')",
    ]);
  });
});

describe('createMysqlPool and migrate', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('creates the missing database, applies every migration once and records it', async () => {
    const pool = await createMysqlPool(db.settings);
    try {
      expect(await migrate(pool, migrations)).toEqual(['001_widgets.sql', '002_widget_seed.sql']);
      expect(await migrate(pool, migrations)).toEqual([]);
      const [widgets] = await pool.query<RowDataPacket[]>('SELECT name FROM widgets');
      expect(widgets).toEqual([{ name: 'first; with a semicolon inside' }]);
      const [versions] = await pool.query<RowDataPacket[]>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      expect(versions.map((row) => row.version)).toEqual([
        '001_widgets.sql',
        '002_widget_seed.sql',
      ]);
    } finally {
      await pool.end();
    }
  });

  it('reads and writes TIMESTAMP values in UTC whatever the server time zone', async () => {
    const pool = await createMysqlPool(db.settings);
    try {
      await pool.query('CREATE TABLE stamps (at TIMESTAMP NOT NULL)');
      await pool.query('INSERT INTO stamps VALUES (?)', [new Date('2025-03-01T12:00:00Z')]);
      const [rows] = await pool.query<RowDataPacket[]>(
        "SELECT at, DATE_FORMAT(at, '%H:%i') AS text FROM stamps",
      );
      expect(rows[0]?.at).toEqual(new Date('2025-03-01T12:00:00Z'));
      expect(rows[0]?.text).toBe('12:00');
    } finally {
      await pool.end();
    }
  });

  it('fails a query at once when the queue for connections is full, instead of queueing without bound', async () => {
    const pool = await createMysqlPool({ ...db.settings, poolSize: 1, queueLimit: 1 });
    try {
      const holding = pool.query('SELECT SLEEP(0.5)');
      const waiting = pool.query('SELECT 1 AS n');
      const started = Date.now();
      await expect(pool.query('SELECT 2')).rejects.toThrow('Queue limit reached');
      expect(Date.now() - started).toBeLessThan(100);
      await holding;
      expect((await waiting)[0]).toEqual([{ n: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it.each([
    ['a text query', false],
    ['a prepared statement', true],
  ])('bounds %s and drops the connection it timed out on', async (_kind, prepared) => {
    const pool = await createMysqlPool({ ...db.settings, poolSize: 1 });
    try {
      const [[before]] = await pool.query<RowDataPacket[]>('SELECT CONNECTION_ID() AS id');
      const started = Date.now();
      await expect(
        queryWithin(pool, 200, 'SELECT SLEEP(?)', [2], { prepared }),
      ).rejects.toMatchObject({ code: 'PROTOCOL_SEQUENCE_TIMEOUT' });
      expect(Date.now() - started).toBeLessThan(1000);
      const rows = await queryWithin<RowDataPacket[]>(
        pool,
        200,
        'SELECT CONNECTION_ID() AS id',
        [],
      );
      expect(rows[0]?.id).not.toBe(before?.id);
    } finally {
      await pool.end();
    }
  });

  it.each([
    ['a text query', false],
    ['a prepared statement', true],
  ])('gives the rows of %s as arrays of column values when asked', async (_kind, prepared) => {
    const pool = await createMysqlPool(db.settings);
    try {
      const sql = 'SELECT ? AS n, CAST(? AS BINARY) AS bytes';
      expect(await queryWithin(pool, 2000, sql, [1, 'é'], { prepared, rowsAsArray: true })).toEqual(
        [[1, Buffer.from('é')]],
      );
      expect(await queryWithin(pool, 2000, sql, [1, 'é'], { prepared })).toEqual([
        { n: 1, bytes: Buffer.from('é') },
      ]);
    } finally {
      await pool.end();
    }
  });

  it('runs a prepared write and tells its errors as the text protocol does', async () => {
    const pool = await createMysqlPool(db.settings);
    try {
      await pool.query(
        'CREATE TABLE prepared_rows (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(10) NOT NULL)',
      );
      const write = (name: unknown) =>
        queryWithin<ResultSetHeader>(
          pool,
          2000,
          'INSERT INTO prepared_rows (name) VALUES (?)',
          [name],
          {
            prepared: true,
          },
        );
      const first = await write('a');
      const second = await write('b');
      expect(second.insertId).toBe(first.insertId + 1);
      await expect(write(null)).rejects.toMatchObject({ code: 'ER_BAD_NULL_ERROR' });
      expect(isMysqlUnavailable(await write(null).catch((err) => err))).toBe(false);
    } finally {
      await pool.end();
    }
  });

  describe('transactionWithin', () => {
    const setUp = async () => {
      const pool = await createMysqlPool({ ...db.settings, poolSize: 1, multipleStatements: true });
      await pool.query('DROP TABLE IF EXISTS tx_rows, tx_marks');
      await pool.query(
        'CREATE TABLE tx_rows (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(10))',
      );
      await pool.query('CREATE TABLE tx_marks (name VARCHAR(10) PRIMARY KEY, row_id INT NOT NULL)');
      return pool;
    };
    const rows = async (pool: Awaited<ReturnType<typeof setUp>>, table: string) =>
      (await pool.query<RowDataPacket[]>(`SELECT * FROM ${table} ORDER BY 1`))[0];

    it('commits every statement in one round trip; a later one reads the id of an earlier one', async () => {
      const pool = await setUp();
      try {
        const [inserted, marked] = (await transactionWithin(pool, 2000, [
          { sql: 'INSERT INTO tx_rows (name) VALUES (?), (?)', values: ['a', 'b'] },
          { sql: 'INSERT INTO tx_marks VALUES (?, LAST_INSERT_ID() + 1)', values: ['b'] },
        ])) as ResultSetHeader[];
        expect(inserted?.affectedRows).toBe(2);
        expect(marked?.affectedRows).toBe(1);
        expect(await rows(pool, 'tx_marks')).toEqual([
          { name: 'b', row_id: (inserted?.insertId ?? 0) + 1 },
        ]);
        expect(await rows(pool, 'tx_rows')).toHaveLength(2);
      } finally {
        await pool.end();
      }
    });

    it('writes nothing when a statement fails, and the connection serves the next request', async () => {
      const pool = await setUp();
      try {
        await pool.query("INSERT INTO tx_marks VALUES ('taken', 1)");
        await expect(
          transactionWithin(pool, 2000, [
            { sql: 'INSERT INTO tx_rows (name) VALUES (?)', values: ['lost'] },
            { sql: 'INSERT INTO tx_marks VALUES (?, LAST_INSERT_ID())', values: ['taken'] },
          ]),
        ).rejects.toMatchObject({ code: 'ER_DUP_ENTRY' });
        expect(await rows(pool, 'tx_rows')).toEqual([]);
        // The one connection of the pool is out of the failed transaction: this commits.
        await transactionWithin(pool, 2000, [
          { sql: 'INSERT INTO tx_rows (name) VALUES (?)', values: ['kept'] },
        ]);
        expect(await rows(pool, 'tx_rows')).toEqual([{ id: expect.any(Number), name: 'kept' }]);
      } finally {
        await pool.end();
      }
    });

    it('is bounded and drops the connection it timed out on; what the server had was done whole or not at all', async () => {
      const pool = await setUp();
      try {
        const started = Date.now();
        await expect(
          transactionWithin(pool, 200, [
            { sql: 'INSERT INTO tx_rows (name) VALUES (?)', values: ['slow'] },
            { sql: 'SELECT SLEEP(1)', values: [] },
            { sql: 'INSERT INTO tx_marks VALUES (?, LAST_INSERT_ID())', values: ['slow'] },
          ]),
        ).rejects.toMatchObject({ code: 'PROTOCOL_SEQUENCE_TIMEOUT' });
        expect(Date.now() - started).toBeLessThan(1000);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const written = await rows(pool, 'tx_rows');
        const marked = await rows(pool, 'tx_marks');
        expect(marked.map((mark) => mark.row_id)).toEqual(written.map((row) => row.id));
      } finally {
        await pool.end();
      }
    });
  });

  it('tells an unreachable server from a wrong query', () => {
    expect(isMysqlUnavailable(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe(
      true,
    );
    expect(isMysqlUnavailable(Object.assign(new Error('gone'), { code: 'X', fatal: true }))).toBe(
      true,
    );
    expect(isMysqlUnavailable(Object.assign(new Error('dup'), { code: 'ER_DUP_ENTRY' }))).toBe(
      false,
    );
    expect(isMysqlUnavailable(undefined)).toBe(false);
  });

  it('applies each file once when several instances migrate at the same moment', async () => {
    const fresh = await createTestDatabase();
    const pools = await Promise.all([1, 2, 3].map(() => createMysqlPool(fresh.settings)));
    try {
      const applied = await Promise.all(pools.map((pool) => migrate(pool, migrations)));
      expect(applied.flat().sort()).toEqual(['001_widgets.sql', '002_widget_seed.sql']);
      const [rows] = await pools[0]!.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM widgets');
      expect(rows[0]?.n).toBe(1);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
      await fresh.drop();
    }
  });

  it('fails fast with one line naming the address and the variables when nothing listens', async () => {
    const port = await freePort();
    const started = Date.now();
    const attempt = createMysqlPool({ ...db.settings, host: '127.0.0.1', port });
    await expect(attempt).rejects.toThrow(StoreUnreachableError);
    await expect(attempt).rejects.toThrow(
      `cannot reach MySQL at 127.0.0.1:${port} (ECONNREFUSED); set MYSQL_HOST, MYSQL_PORT, MYSQL_USER, MYSQL_PASSWORD`,
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
