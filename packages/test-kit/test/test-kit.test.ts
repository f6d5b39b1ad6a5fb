import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  createTestRedis,
  type MysqlSettings,
  startMariaDbServer,
} from '../src/index.js';

/** A pool on the test database, created first (common's pool would create it itself). */
async function poolOn(settings: MysqlSettings) {
  const { database, ...server } = settings;
  const conn = await mysql.createConnection(server);
  await conn.query(`CREATE DATABASE IF NOT EXISTS \`${database}\``);
  await conn.end();
  return mysql.createPool(settings);
}

describe('test kit', () => {
  it('gives each caller a Redis key space of its own, emptied first', async () => {
    const [a, b] = await Promise.all([createTestRedis(), createTestRedis()]);
    expect(a.settings.db).not.toBe(b.settings.db);
    const clientA = new Redis(a.url);
    const clientB = new Redis(b.url);
    try {
      await clientA.set('shared-name', 'a');
      expect(await clientB.get('shared-name')).toBeNull();
      await a.flush();
      expect(await clientA.dbsize()).toBe(0);
    } finally {
      clientA.disconnect();
      clientB.disconnect();
    }
  });

  it('gives each caller a database of its own and drops it', async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    expect(a.settings.database).not.toBe(b.settings.database);
    const pool = await poolOn(a.settings);
    const [rows] = await pool.query('SELECT DATABASE() AS db');
    expect(rows).toEqual([{ db: a.settings.database }]);
    await pool.end();
    await a.drop();
    await b.drop();
  });

  it('starts, stops and restarts a MariaDB of its own on the same port', async () => {
    const server = await startMariaDbServer();
    try {
      const db = await createTestDatabase(server.url);
      const pool = await poolOn(db.settings);
      await pool.query('CREATE TABLE t (x INT)');
      await pool.query('INSERT INTO t VALUES (7)');
      await server.stop();
      await expect(pool.query('SELECT x FROM t')).rejects.toThrow();
      await server.start();
      await expect
        .poll(() =>
          pool
            .query('SELECT x FROM t')
            .then(([r]) => r)
            .catch(() => 'down'),
        )
        .toEqual([{ x: 7 }]);
      await pool.end();
    } finally {
      await server.destroy();
    }
  });
});
