import { migrate, type RowDataPacket } from '@svc/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptKeys } from '../src/idempotency/kept-keys.js';
import { merchantRepository } from '../src/merchants/merchant.repository.js';
import { migrationsDir } from '../src/migrations-dir.js';
import { serviceRepository } from '../src/offerings/service.repository.js';
import { orderRepository } from '../src/orders/order.repository.js';
import { type PlatformDatabase, platformDatabase } from '../src/store/database.js';
import { createTestApp, execute, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function rows(sql: string, values: unknown[] = []) {
  const [result] = await t.pool.query<RowDataPacket[]>(sql, values);
  return result;
}

/** Portable across MySQL 8 and MariaDB: no display widths, one spelling of the defaults. */
async function columns(table: string) {
  const found = await rows(
    `SELECT COLUMN_NAME AS name, DATA_TYPE AS type, CHARACTER_MAXIMUM_LENGTH AS length,
            NUMERIC_PRECISION AS p, NUMERIC_SCALE AS s, IS_NULLABLE AS nullable,
            COLUMN_DEFAULT AS fallback, EXTRA AS extra, CHARACTER_SET_NAME AS charset
     FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
     ORDER BY ORDINAL_POSITION`,
    [table],
  );
  return found.map((c) => {
    const fallback = c.fallback === null || c.fallback === 'NULL' ? null : String(c.fallback);
    const spec = [c.type, c.length ?? (c.type === 'decimal' ? `${c.p},${c.s}` : '')];
    if (c.nullable === 'NO') spec.push('not null');
    if (fallback !== null) spec.push(`default ${fallback.replace(/\(\)$/, '').toLowerCase()}`);
    if (c.extra.includes('auto_increment')) spec.push('auto');
    if (c.charset) spec.push(c.charset);
    return `${c.name}: ${spec.filter(Boolean).join(' ')}`;
  });
}

describe('schema', () => {
  it('has the spec fields for merchants, services and orders', async () => {
    expect(await columns('merchants')).toEqual([
      'id: int not null auto',
      'name: varchar 100 not null utf8mb4',
      'address: varchar 200 not null utf8mb4',
      'phone: varchar 20 not null utf8mb4',
      'status: tinyint not null default 0',
      'create_time: timestamp not null default current_timestamp',
    ]);
    expect(await columns('services')).toEqual([
      'id: int not null auto',
      'merchant_id: int not null',
      'name: varchar 100 not null utf8mb4',
      'price: decimal 10,2 not null',
      'category: varchar 50 not null utf8mb4',
      'image_url: varchar 200 utf8mb4',
      'stock: int not null default 0',
      'status: tinyint not null default 0',
      'create_time: timestamp not null default current_timestamp',
    ]);
    expect(await columns('orders')).toEqual([
      'id: int not null auto',
      'service_id: int not null',
      'user_name: varchar 50 not null utf8mb4',
      'user_phone: varchar 20 not null utf8mb4',
      'create_time: timestamp not null default current_timestamp',
      'status: tinyint not null default 0',
    ]);
  });

  it('keeps Idempotency-Keys by resource and key, with an index for the sweep of expired ones', async () => {
    expect(await columns('idempotency_keys')).toEqual([
      'resource: varchar 16 not null ascii',
      'idempotency_key: varbinary 255 not null',
      'request_hash: binary 32 not null',
      'row_id: int not null',
      'expires_at: timestamp not null',
    ]);
    const indexes = await rows(
      `SELECT INDEX_NAME AS i, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS c
       FROM information_schema.STATISTICS
       WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_keys'
       GROUP BY INDEX_NAME ORDER BY INDEX_NAME`,
    );
    expect(indexes.map((row) => `${row.i}(${row.c})`)).toEqual([
      'idx_idempotency_keys_expires(expires_at)',
      'PRIMARY(resource,idempotency_key)',
    ]);
  });

  it('holds no cursor secret before the service makes one (test/server-versions.test.ts)', async () => {
    const [table] = await rows(
      `SELECT COUNT(*) AS tables FROM information_schema.TABLES
       WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'platform_secrets'`,
    );
    expect(table).toEqual({ tables: 1 });
    expect(await rows('SELECT name FROM platform_secrets')).toEqual([]);
  });

  it('uses InnoDB and utf8mb4, with cascading foreign keys', async () => {
    expect(
      await rows(
        `SELECT TABLE_NAME AS name, ENGINE AS engine, TABLE_COLLATION AS collation
         FROM information_schema.TABLES
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('merchants', 'services', 'orders')
         ORDER BY TABLE_NAME`,
      ),
    ).toEqual([
      { name: 'merchants', engine: 'InnoDB', collation: 'utf8mb4_unicode_ci' },
      { name: 'orders', engine: 'InnoDB', collation: 'utf8mb4_unicode_ci' },
      { name: 'services', engine: 'InnoDB', collation: 'utf8mb4_unicode_ci' },
    ]);
    expect(
      await rows(
        `SELECT TABLE_NAME AS child, REFERENCED_TABLE_NAME AS parent, DELETE_RULE AS onDelete
         FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()
         ORDER BY TABLE_NAME`,
      ),
    ).toEqual([
      { child: 'orders', parent: 'services', onDelete: 'CASCADE' },
      { child: 'services', parent: 'merchants', onDelete: 'CASCADE' },
      { child: 'webhook_deliveries', parent: 'webhooks', onDelete: 'CASCADE' },
    ]);
  });

  it('indexes the join keys, the category filter and both order list orders', async () => {
    const indexes = await rows(
      `SELECT TABLE_NAME AS t, INDEX_NAME AS i, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS c
       FROM information_schema.STATISTICS
       WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('merchants', 'services', 'orders')
       GROUP BY TABLE_NAME, INDEX_NAME ORDER BY TABLE_NAME, INDEX_NAME`,
    );
    expect(indexes.map((row) => `${row.t}.${row.i}(${row.c})`)).toEqual([
      'merchants.PRIMARY(id)',
      'orders.idx_orders_created(create_time,id)',
      'orders.idx_orders_service(service_id)',
      'orders.idx_orders_status_created(status,create_time,id)',
      'orders.PRIMARY(id)',
      'services.idx_services_category(category,id)',
      'services.idx_services_merchant(merchant_id)',
      'services.PRIMARY(id)',
    ]);
  });

  it('applies nothing twice', async () => {
    expect(await migrate(t.pool, migrationsDir)).toEqual([]);
  });
});

describe('list queries on 20,000 orders', () => {
  const seen: { sql: string; values: unknown[] }[] = [];
  const page = { limit: 20, offset: 40 };

  beforeAll(async () => {
    await execute(
      t.pool,
      `INSERT INTO merchants (name, address, phone)
       SELECT CONCAT('m', a.d), 'addr', '1' FROM (${digits('d')}) a`,
    );
    await execute(
      t.pool,
      `INSERT INTO services (merchant_id, name, price, category)
       SELECT m.id, CONCAT('s', d.d), '10.00', ELT(1 + d.d % 3, '家政', '维修', '保洁')
       FROM merchants m, (${digits('d')}) d`,
    );
    await execute(
      t.pool,
      `INSERT INTO orders (service_id, user_name, user_phone, status, create_time)
       SELECT s.id, 'u', '1', n % 3, TIMESTAMP('2024-01-01') + INTERVAL n MINUTE
       FROM (SELECT a.d + 10 * b.d + 100 * c.d AS n
             FROM (${digits('d')}) a, (${digits('d')}) b, (${digits('d')}) c) x,
            (SELECT id FROM services WHERE id % 5 = 0) s`,
    );
    await execute(t.pool, 'ANALYZE TABLE merchants, services, orders');

    const db = platformDatabase(t.pool);
    const reads: PlatformDatabase['lists'] = {
      select: (sql, values = []) => {
        seen.push({ sql, values });
        return db.select(sql, values);
      },
      selectJson: (sql, values = []) => {
        seen.push({ sql, values });
        return db.selectJson(sql, values);
      },
      lookupThenStream: (lookup, list) => {
        seen.push(lookup, list);
        return db.lookupThenStream(lookup, list);
      },
    };
    const recording: PlatformDatabase = {
      ...reads,
      lists: reads,
      insert: db.insert,
      insertRows: db.insertRows,
      connections: db.connections,
      update: db.update,
      change: db.change,
      readCommitted: db.readCommitted,
    };
    const keys = keptKeys(recording, 60);
    const orders = orderRepository(recording, keys, { insertConcurrency: 2 });
    const services = serviceRepository(recording, keys);
    const merchants = merchantRepository(recording, keys);
    await Promise.all([
      orders.list(undefined).page(page),
      orders.list(1).page(page),
      orders.list(undefined).count(),
      orders.list(2).count(),
      services.list(undefined).page(page),
      services.list('维修').page(page),
      services.list('维修').count(),
      merchants.list().page(page),
      orders.list(undefined).walk(undefined, 21),
      orders.list(1).walk({ createTime: Date.parse('2024-01-05T00:00:00Z') / 1000, id: 500 }, 21),
      orders
        .list(undefined)
        .walk({ createTime: Date.parse('2024-01-05T00:00:00Z') / 1000, id: 500 }, 21),
    ]);
  });

  it('has the rows it claims', async () => {
    expect(await t.counts()).toEqual({ merchants: 10, services: 100, orders: 20_000 });
  });

  it('reads every table through an index and sorts nothing but the ids of one page', async () => {
    expect(seen).toHaveLength(11);
    for (const { sql, values } of seen) {
      const plan = await rows(`EXPLAIN ${sql}`, values);
      for (const step of plan) {
        const where = `${sql.replace(/\s+/g, ' ').trim()}: ${JSON.stringify(step)}`;
        if (String(step.table).startsWith('<derived')) {
          expect(Number(step.rows), where).toBeLessThanOrEqual(page.limit + page.offset);
        } else {
          expect(step.key, where).not.toBeNull();
          expect(String(step.Extra ?? ''), where).not.toMatch(/filesort|temporary/i);
        }
      }
    }
  });

  it('walks the time index for an unfiltered order page and the status index for a status page', async () => {
    const indexOf = async (index: number) =>
      (await rows(`EXPLAIN ${seen[index]!.sql}`, seen[index]!.values)).find(
        (step) => step.table === 'o' && step.key !== 'PRIMARY',
      )?.key;
    expect(await indexOf(0)).toBe('idx_orders_created');
    expect(await indexOf(1)).toBe('idx_orders_status_created');
    expect(await indexOf(8)).toBe('idx_orders_created');
    expect(await indexOf(9)).toBe('idx_orders_status_created');
    expect(await indexOf(10)).toBe('idx_orders_created');
  });
});

function digits(name: string) {
  return Array.from({ length: 10 }, (_, d) => `SELECT ${d} AS ${name}`).join(' UNION ALL ');
}
