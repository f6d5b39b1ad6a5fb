import { Socket } from 'node:net';
import { createTestDatabase, type TestDatabase } from '@svc/test-kit';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  connectionOf,
  destroyConnection,
  isUsable,
  poolCounts,
  poolSize,
} from '../src/mysql-driver.js';
import { createMysqlPool } from '../src/mysql-settings.js';

/**
 * mysql-driver.ts reads fields mysql2 does not publish. These tests name each
 * one, so an upgrade that renames or reshapes any of them fails here, not in
 * production as a wrong metric or a connection left busy on the server.
 */
describe('the mysql2 internals mysql-driver.ts relies on', () => {
  let db: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    pool = await createMysqlPool({ ...db.settings, poolSize: 2 });
  });
  afterEach(async () => {
    await pool.end();
  });

  const serverThreads = async () => {
    const [rows] = await pool.query<RowDataPacket[]>(
      'SELECT ID AS id FROM information_schema.PROCESSLIST',
    );
    return rows.map((row) => Number(row.id));
  };

  it('the callback pool keeps its connections in queues with a numeric length', () => {
    const internals = pool.pool as unknown as Record<string, unknown>;
    for (const field of ['_allConnections', '_freeConnections', '_connectionQueue']) {
      expect(internals[field], field).toBeTypeOf('object');
      expect((internals[field] as { length: unknown }).length, `${field}.length`).toBeTypeOf(
        'number',
      );
    }
    expect(pool.pool.config.connectionLimit).toBe(2);
    expect(poolSize(pool)).toBe(2);
  });

  it('counts move as a connection is taken, released, and waited for', async () => {
    expect(poolCounts(pool)).toEqual({ all: 0, free: 0, queued: 0 });
    const first = await connectionOf(pool);
    const second = await connectionOf(pool);
    expect(poolCounts(pool)).toEqual({ all: 2, free: 0, queued: 0 });
    const waiting = connectionOf(pool);
    expect(poolCounts(pool)).toEqual({ all: 2, free: 0, queued: 1 });
    first.release();
    const third = await waiting;
    expect(poolCounts(pool)).toEqual({ all: 2, free: 0, queued: 0 });
    second.release();
    third.release();
    expect(poolCounts(pool)).toEqual({ all: 2, free: 2, queued: 0 });
  });

  it("a connection's socket is its `stream`, and destroyConnection closes it and the server's thread", async () => {
    const conn = await connectionOf(pool);
    const socket = (conn as unknown as { stream: unknown }).stream;
    expect(socket).toBeInstanceOf(Socket);
    expect(isUsable(conn)).toBe(true);
    const thread = conn.threadId;
    expect(await serverThreads()).toContain(thread);
    const open = poolCounts(pool).all;

    destroyConnection(conn);
    expect((socket as Socket).destroyed).toBe(true);
    expect(isUsable(conn)).toBe(false);
    expect(poolCounts(pool).all).toBe(open - 1);
    await expect.poll(serverThreads, { timeout: 2000 }).not.toContain(thread);
  });
});
