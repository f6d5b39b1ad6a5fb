import { createTestDatabase, type TestDatabase } from '@svc/test-kit';
import type { Pool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../src/errors.js';
import { createDatabase } from '../src/mysql-database.js';
import { createMysqlPool } from '../src/mysql-settings.js';
import { sharedSecrets } from '../src/shared-secrets.js';

describe('sharedSecrets', () => {
  let test: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    test = await createTestDatabase();
    pool = await createMysqlPool({ ...test.settings, poolSize: 4 });
    await pool.query(
      'CREATE TABLE app_secrets (name VARCHAR(40) PRIMARY KEY, secret VARBINARY(64) NOT NULL)',
    );
  });
  afterAll(async () => {
    await pool.end();
    await test.drop();
  });

  it('gives every instance starting together the one secret written first', async () => {
    // Eight instances, each with its own reader, ask for the same new secret at once.
    const instances = Array.from({ length: 8 }, () =>
      sharedSecrets<'signing'>(createDatabase(pool), 'app_secrets'),
    );
    const secrets = await Promise.all(instances.map((secret) => secret('signing')));
    const [[row]] = (await pool.query("SELECT secret FROM app_secrets WHERE name = 'signing'")) as [
      { secret: Buffer }[],
      unknown,
    ];
    expect(row?.secret).toHaveLength(32);
    for (const secret of secrets) expect(secret.equals(row?.secret as Buffer)).toBe(true);
    // Another name is another secret.
    const other = await (instances[0] as (name: string) => Promise<Buffer>)('other');
    expect(other.equals(row?.secret as Buffer)).toBe(false);
  });

  it('reads once per process, and tries again after a failed read', async () => {
    const db = createDatabase(pool);
    let reads = 0;
    let failNext = true;
    const counting = {
      select: <T>(sql: string, values?: unknown[]) => {
        reads++;
        return db.select<T>(sql, values);
      },
      update: async (sql: string, values: unknown[]) => {
        if (failNext) {
          failNext = false;
          throw new StoreUnavailableError('mysql', new Error('connection refused'));
        }
        return db.update(sql, values);
      },
    };
    const secret = sharedSecrets<'signing'>(counting, 'app_secrets');
    await expect(secret('signing')).rejects.toBeInstanceOf(StoreUnavailableError);
    const first = await secret('signing');
    expect(reads).toBe(1);
    expect((await secret('signing')).equals(first)).toBe(true);
    expect(reads).toBe(1);
  });
});
