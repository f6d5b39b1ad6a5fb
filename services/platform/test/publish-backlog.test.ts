import type { Pool, RowDataPacket } from '@svc/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRepository } from '../src/feed/event.repository.js';
import { publishCommitted } from '../src/webhooks/deliveries.js';
import { NUMBERS } from './support/numbers.js';
import { readsOf } from './support/session-reads.js';
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
  await pool.query(
    `INSERT INTO events (id, type, row_id, row_status)
     SELECT n, 'order.created', n, 0 FROM (${NUMBERS}) numbers WHERE n <= ? ORDER BY n`,
    [PUBLISHED],
  );
  await pool.query(
    `INSERT INTO events (type, row_id, row_status)
     SELECT 'order.created', n, 0 FROM (${NUMBERS}) numbers WHERE n <= ? ORDER BY n`,
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

describe('a backlog of events to number, behind many numbered ones', () => {
  it('the oldest undelivered event is found without reading the numbered ones or the backlog', async () => {
    const reads = await readsOf(t.settings, (db) => eventRepository(db).oldestUndeliveredAge());
    expect(reads).toBeLessThan(100);
  });

  it('the bounds the feed checks an after against are found without reading the numbered ones', async () => {
    const reads = await readsOf(t.settings, async (db) => {
      expect(await eventRepository(db).bounds()).toEqual({ oldest: 1, last: PUBLISHED });
    });
    expect(reads).toBeLessThan(100);
  });

  it('a publish step numbers the oldest thousand without reading the numbered ones or the rest of the backlog', async () => {
    const reads = await readsOf(t.settings, async (db) => {
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
