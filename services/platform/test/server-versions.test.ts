import { readFile } from 'node:fs/promises';
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

describe('migrations on MariaDB 10.6', () => {
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
