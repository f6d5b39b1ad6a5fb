import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { migrate, type RowDataPacket } from '@svc/common';
import { createTestDatabase, type TestDatabase } from '@svc/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { migrationsDir } from '../src/migrations-dir.js';
import { decodeCursor } from '../src/orders/order-cursor.js';
import {
  addMerchant,
  addOrder,
  addService,
  createPlatformPool,
  createRecordedApp,
  testLogs,
} from './support/test-app.js';

/**
 * Functions of MySQL or MariaDB that one of the servers the platform runs on
 * lacks: MariaDB 10.6 (Ubuntu 22.04's) or MySQL 8.0. The tests run on a newer
 * MariaDB, which has them all, so only this list keeps them out.
 */
const NEWER_THAN_SUPPORTED = [
  'RANDOM_BYTES', // MariaDB 10.10
  'NATURAL_SORT_KEY', // MariaDB 10.7
  'SFORMAT', // MariaDB 10.7
  'JSON_EQUALS', // MariaDB 10.7
  'JSON_NORMALIZE', // MariaDB 10.7
  'JSON_OVERLAPS', // MariaDB 10.9
  'JSON_SCHEMA_VALID', // MariaDB 11.1
  'JSON_ARRAY_INTERSECT', // MariaDB 11.2
  'JSON_KEY_VALUE', // MariaDB 11.2
  'KDF', // MariaDB 11.3
  'UUID_V4', // MariaDB 11.7
  'UUID_V7', // MariaDB 11.7
  'FORMAT_PICO_TIME', // MariaDB 11.0
  'FORMAT_BYTES', // MariaDB 11.0
  'PS_THREAD_ID', // MariaDB 11.0
  'PS_CURRENT_THREAD_ID', // MariaDB 11.0
  'REGEXP_LIKE', // MySQL only
  'SYS_GUID', // MariaDB only
  'ADD_MONTHS', // MariaDB only
];
const CALLED = new RegExp(`\\b(${NEWER_THAN_SUPPORTED.join('|')})\\s*\\(`, 'i');

const srcDir = join(import.meta.dirname, '..', 'src');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(sql|ts)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.drop();
  database = undefined;
});

/** A database of its own, `before` run on it, then migrated as the service would. */
async function migratedAfter(before: string[] = []) {
  database = await createTestDatabase();
  const pool = await createPlatformPool(database.settings);
  for (const statement of before) await pool.query(statement);
  await migrate(pool, migrationsDir);
  return pool;
}

describe('the SQL runs on MariaDB 10.6 and MySQL 8.0', () => {
  it('calls no function that either lacks, in a migration or a statement', async () => {
    const files = [...(await filesUnder(migrationsDir)), ...(await filesUnder(srcDir))];
    expect(files.length).toBeGreaterThan(20);
    const calls = [];
    for (const file of files) {
      for (const [i, line] of (await readFile(file, 'utf8')).split('\n').entries()) {
        if (CALLED.test(line)) calls.push(`${file}:${i + 1}: ${line.trim()}`);
      }
    }
    expect(calls).toEqual([]);
  });

  it('migrates where 005 made its table and then failed, as on MariaDB 10.6', async () => {
    const made = (await readFile(join(migrationsDir, '005_secrets.sql'), 'utf8')).replace(
      / IF NOT EXISTS/,
      '',
    );
    // Migrations 001-004 are not applied yet: the table alone, as the failed run left it.
    const pool = await migratedAfter([/CREATE TABLE[^;]+;/.exec(made)?.[0] as string]);
    try {
      const [applied] = await pool.query<RowDataPacket[]>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      expect(applied.map((row) => row.version)).toContain('005_secrets.sql');
    } finally {
      await pool.end();
    }
  });
});

describe('the cursor secret, made by the service', () => {
  it('is made once by the first of two instances, and each takes the cursors of the other', async () => {
    const pool = await migratedAfter();
    try {
      await pool.query('DELETE FROM platform_secrets');
      const [a, b] = [1, 2].map((n) =>
        createRecordedApp({ pool, logger: testLogs(`instance-${n}`).logger }),
      ) as [ReturnType<typeof createRecordedApp>, ReturnType<typeof createRecordedApp>];
      const serviceId = await addService(a, await addMerchant(a));
      for (let i = 0; i < 4; i++) await addOrder(a, serviceId);
      const [fromA, fromB] = await Promise.all([
        request(a).get('/api/order/list?pageSize=1'),
        request(b).get('/api/order/list?pageSize=1'),
      ]);
      expect([fromA.body.code, fromB.body.code]).toEqual([200, 200]);
      const next = (res: request.Response) => res.headers['x-next-cursor'] as string;
      expect(next(fromA)).toBe(next(fromB));
      const onB = await request(b).get(`/api/order/list?pageSize=1&cursor=${next(fromA)}`);
      expect(onB.body.code).toBe(200);
      expect(onB.body.data).toHaveLength(1);
      const [secrets] = await pool.query<RowDataPacket[]>(
        'SELECT name, LENGTH(secret) AS bytes FROM platform_secrets',
      );
      expect(secrets).toEqual([{ name: 'cursor', bytes: 32 }]);
    } finally {
      await pool.end();
    }
  });

  it('keeps the secret an earlier migration wrote, so cursors made before an upgrade stay good', async () => {
    const pool = await migratedAfter();
    try {
      const earlier = Buffer.alloc(32, 7);
      await pool.query(
        "INSERT INTO platform_secrets (name, secret) VALUES ('cursor', ?) ON DUPLICATE KEY UPDATE secret = VALUES(secret)",
        [earlier],
      );
      const app = createRecordedApp({ pool, logger: testLogs().logger });
      const serviceId = await addService(app, await addMerchant(app));
      for (let i = 0; i < 2; i++) await addOrder(app, serviceId);
      const res = await request(app).get('/api/order/list?pageSize=1');
      expect(decodeCursor(earlier, res.headers['x-next-cursor'] as string)).toBeDefined();
    } finally {
      await pool.end();
    }
  });
});
