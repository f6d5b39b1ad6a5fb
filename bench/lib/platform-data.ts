import type { MysqlSettings } from '@svc/common';
import { mysqlSettingsFromUrl } from '@svc/test-kit';
import mysql, { type Connection, type RowDataPacket } from 'mysql2/promise';

const MERCHANTS = 100;
const SERVICES = 2000;
const CATEGORIES = ['家政', '维修', '保洁'];
const BATCH = 5000;

export type MysqlServer = Omit<MysqlSettings, 'database'>;

export function mysqlServerFrom(url: string): MysqlServer {
  const { database: _none, ...server } = mysqlSettingsFromUrl(url, '');
  return server;
}

/** The old server's schema: the spec's tables, keys and foreign keys, nothing more. */
const LEGACY_SCHEMA = [
  `CREATE TABLE merchants (
     id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
     name VARCHAR(100) NOT NULL, address VARCHAR(200) NOT NULL, phone VARCHAR(20) NOT NULL,
     status INT DEFAULT 0, create_time TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
   ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
  `CREATE TABLE services (
     id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
     merchant_id INT NOT NULL, name VARCHAR(100) NOT NULL, price DECIMAL(10,2) NOT NULL,
     category VARCHAR(50) NOT NULL, image_url VARCHAR(200), stock INT DEFAULT 0, status INT DEFAULT 0,
     create_time TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
     FOREIGN KEY (merchant_id) REFERENCES merchants(id) ON DELETE CASCADE
   ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
  `CREATE TABLE orders (
     id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
     service_id INT NOT NULL, user_name VARCHAR(50) NOT NULL, user_phone VARCHAR(20) NOT NULL,
     create_time TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, status INT DEFAULT 0,
     FOREIGN KEY (service_id) REFERENCES services(id) ON DELETE CASCADE
   ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
];

async function connect(server: MysqlServer, database?: string): Promise<Connection> {
  return mysql.createConnection({ ...server, database, multipleStatements: false });
}

async function count(conn: Connection, table: string): Promise<number> {
  const [rows] = await conn
    .query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM ${table}`)
    .catch(() => [[{ n: -1 }] as RowDataPacket[]]);
  return Number(rows[0]?.n ?? -1);
}

/** True when the database already holds exactly the bench data of this size. */
export async function holdsData(server: MysqlServer, database: string, orders: number) {
  const conn = await connect(server);
  try {
    const [dbs] = await conn.query<RowDataPacket[]>('SHOW DATABASES LIKE ?', [database]);
    if (dbs.length === 0) return false;
    await conn.changeUser({ database });
    return (
      (await count(conn, 'merchants')) === MERCHANTS &&
      (await count(conn, 'services')) === SERVICES &&
      (await count(conn, 'orders')) === orders
    );
  } finally {
    await conn.end();
  }
}

async function insertRows(conn: Connection, table: string, columns: string[], rows: unknown[][]) {
  for (let i = 0; i < rows.length; i += BATCH) {
    await conn.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ?`, [
      rows.slice(i, i + BATCH),
    ]);
  }
}

function orderRows(from: number, to: number, sameSecond: boolean): unknown[][] {
  const base = Date.UTC(2025, 0, 1) / 1000;
  const rows: unknown[][] = [];
  for (let id = from; id <= to; id++) {
    // Three orders share each second, so the newest-first order needs its id
    // tie-break; with `sameSecond`, every order shares one (a burst's shape).
    const created = new Date((base + (sameSecond ? 0 : Math.floor(id / 3))) * 1000);
    rows.push([
      id,
      1 + ((id * 7919) % SERVICES),
      `客户${id}`,
      `139${String(id).padStart(8, '0')}`,
      created,
      id % 3,
    ]);
  }
  return rows;
}

/**
 * Empties the three tables of `database` (whose schema must exist) and fills
 * them with the deterministic bench data, in multi-row inserts; with
 * `sameSecond`, every order was created in the same second.
 */
export async function seed(
  server: MysqlServer,
  database: string,
  orders: number,
  sameSecond = false,
): Promise<void> {
  const conn = await connect(server, database);
  try {
    await conn.query('SET FOREIGN_KEY_CHECKS = 0');
    for (const table of ['orders', 'services', 'merchants'])
      await conn.query(`TRUNCATE TABLE ${table}`);
    await conn.query('SET FOREIGN_KEY_CHECKS = 1');
    await insertRows(
      conn,
      'merchants',
      ['id', 'name', 'address', 'phone', 'status'],
      Array.from({ length: MERCHANTS }, (_, i) => [
        i + 1,
        `商家${i + 1}`,
        `地址${i + 1}号`,
        `138${String(i + 1).padStart(8, '0')}`,
        i % 2,
      ]),
    );
    await insertRows(
      conn,
      'services',
      ['id', 'merchant_id', 'name', 'price', 'category', 'image_url', 'stock', 'status'],
      Array.from({ length: SERVICES }, (_, i) => [
        i + 1,
        1 + (i % MERCHANTS),
        `服务${i + 1}`,
        `${10 + (i % 500)}.50`,
        CATEGORIES[i % CATEGORIES.length],
        i % 4 === 0 ? null : `https://img.example/${i + 1}.png`,
        i % 50,
        i % 2,
      ]),
    );
    for (let from = 1; from <= orders; from += 100_000) {
      const to = Math.min(orders, from + 99_999);
      await insertRows(
        conn,
        'orders',
        ['id', 'service_id', 'user_name', 'user_phone', 'create_time', 'status'],
        orderRows(from, to, sameSecond),
      );
    }
    await conn.query('ANALYZE TABLE merchants, services, orders');
  } finally {
    await conn.end();
  }
}

/** Creates the old server's schema in `target` and copies the data of `source` into it. */
export async function copyToLegacy(server: MysqlServer, source: string, target: string) {
  const conn = await connect(server);
  try {
    await conn.query(`DROP DATABASE IF EXISTS \`${target}\``);
    await conn.query(
      `CREATE DATABASE \`${target}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
    await conn.changeUser({ database: target });
    for (const statement of LEGACY_SCHEMA) await conn.query(statement);
    for (const table of ['merchants', 'services', 'orders']) {
      const columns =
        table === 'merchants'
          ? 'id, name, address, phone, status, create_time'
          : table === 'services'
            ? 'id, merchant_id, name, price, category, image_url, stock, status, create_time'
            : 'id, service_id, user_name, user_phone, create_time, status';
      await conn.query(
        `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM \`${source}\`.${table}`,
      );
    }
    await conn.query('ANALYZE TABLE merchants, services, orders');
  } finally {
    await conn.end();
  }
}

/**
 * Removes the orders a create scenario added, and our schema's Idempotency-Keys
 * and events (the seed writes none), so the next run starts from the same data.
 */
export async function trimOrders(server: MysqlServer, database: string, orders: number) {
  const conn = await connect(server, database);
  try {
    await conn.query('DELETE FROM orders WHERE id > ?', [orders]);
    const [keys] = await conn.query<RowDataPacket[]>("SHOW TABLES LIKE 'idempotency_keys'");
    if (keys.length > 0) await conn.query('DELETE FROM idempotency_keys');
    const [events] = await conn.query<RowDataPacket[]>("SHOW TABLES LIKE 'events'");
    if (events.length > 0) {
      // TRUNCATE: a full run writes millions of events, and no foreign key refers to them.
      await conn.query('TRUNCATE TABLE webhook_deliveries');
      await conn.query('TRUNCATE TABLE events');
    }
  } finally {
    await conn.end();
  }
}
