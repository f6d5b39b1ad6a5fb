import { createMysqlPool, type Pool, type RowDataPacket } from '@svc/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformDatabase } from '../src/db/database.js';
import { eventRepository } from '../src/events/event.repository.js';
import { publishCommitted } from '../src/events/publish.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * The events not yet numbered sit at the end of a table that keeps 30 days of
 * numbered ones. Finding them must read them, not every kept event before
 * them, or all of the backlog: a backlog a third of the table's size made
 * MariaDB walk the primary key from the oldest event instead. Counted on one
 * connection, whose session counters hold its own reads alone.
 */

const PUBLISHED = 20_000;
const BACKLOG = 10_000;

let t: TestApp;
let pool: Pool;
beforeAll(async () => {
  t = await createTestApp();
  pool = t.pool;
  const digits =
    'SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9';
  const numbers = `SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 1 AS n
    FROM (${digits}) a, (${digits}) b, (${digits}) c, (${digits}) e, (${digits}) f`;
  await pool.query(
    `INSERT INTO events (id, type, row_id, row_status)
     SELECT n, 'order.created', n, 0 FROM (${numbers}) numbers WHERE n <= ? ORDER BY n`,
    [PUBLISHED],
  );
  await pool.query(
    `INSERT INTO events (type, row_id, row_status)
     SELECT 'order.created', n, 0 FROM (${numbers}) numbers WHERE n <= ? ORDER BY n`,
    [BACKLOG],
  );
  await pool.query("UPDATE event_counter SET last_id = ? WHERE name IN ('events', 'published')", [
    PUBLISHED,
  ]);
  await pool.query('ANALYZE TABLE events');
});
afterAll(async () => {
  await t.close();
});

/** Rows and index entries read by `work` on a pool of one connection, from its session counters. */
async function readsOf(work: (db: ReturnType<typeof platformDatabase>) => Promise<unknown>) {
  const one = await createMysqlPool({ ...t.settings, poolSize: 1, multipleStatements: true });
  const reads = async () => {
    const [rows] = await one.query<RowDataPacket[]>(
      "SHOW SESSION STATUS WHERE Variable_name LIKE 'Handler_read%'",
    );
    return rows.reduce((sum: number, row) => sum + Number(row.Value), 0);
  };
  try {
    const before = await reads();
    await work(platformDatabase(one));
    return (await reads()) - before;
  } finally {
    await one.end();
  }
}

describe('a backlog of events to number, behind many numbered ones', () => {
  it('the oldest undelivered event is found without reading the numbered ones or the backlog', async () => {
    const reads = await readsOf((db) => eventRepository(db).oldestUndeliveredAge());
    expect(reads).toBeLessThan(100);
  });

  it('a publish step numbers the oldest thousand without reading the numbered ones or the rest of the backlog', async () => {
    const reads = await readsOf(async (db) => {
      const step = await publishCommitted(db);
      expect(step).toMatchObject({ numbered: 1000, full: true });
      expect(step.published).toEqual(new Map([['order.created', 1000]]));
    });
    expect(reads).toBeLessThan(5000);
    const [rows] = await pool.query<RowDataPacket[]>(
      'SELECT MIN(seq) AS first, MAX(seq) AS last, MIN(id) AS low, MAX(id) AS high FROM events WHERE id > ?',
      [PUBLISHED],
    );
    expect(rows[0]).toMatchObject({ low: PUBLISHED + 1, high: PUBLISHED + 1000 });
    expect(Number(rows[0]!.last) - Number(rows[0]!.first)).toBe(999);
  });
});
