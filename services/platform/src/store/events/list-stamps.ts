import { StoreUnavailableError } from '@svc/common';
import type { PlatformDatabase } from '../database.js';
import { sharedRead } from '../shared-read.js';
import { eventBounds } from './event-rows.js';
import { UNNUMBERED } from './outbox.js';

/** The rows a list shows, by the first word of their events' types. */
export type ListFamily = 'merchant' | 'service' | 'order';

const FAMILIES: ListFamily[] = ['merchant', 'service', 'order'];

const TABLES: Record<ListFamily, string> = {
  merchant: 'merchants',
  service: 'services',
  order: 'orders',
};

/** The families whose rows a list shows: a service shows its merchant's name, an order both. */
const SHOWS: Record<ListFamily, ListFamily[]> = {
  merchant: ['merchant'],
  service: ['service', 'merchant'],
  order: ['order', 'service', 'merchant'],
};

/** Each table's newest row, as a row named by its family alone: rows inserted around the service (by hand in SQL) move it too. */
const TOP_IDS = FAMILIES.map(
  (family) => `(SELECT MAX(id), '${family}' FROM ${TABLES[family]})`,
).join(' UNION ALL ');

/** Numbered events one read takes at most; more mean many changes, and every family moves. */
const READ_ROWS = 1000;

/**
 * What tells an instance that a list is unchanged without reading its rows.
 * Every change the service makes commits an event in its own transaction,
 * so a family's stamp (the last numbered event of it seen, and how many of
 * its events wait to be numbered) moves at every commit that changes its
 * rows, on any instance: numbered at its commit, a new id; left to the
 * publisher, one more waiting, then a new id once numbered. Each caller gets
 * the stamps of a read that began after it asked (shared with the callers
 * that came meanwhile, see sharedRead), on the primary: a change answered
 * before a list was asked for is in the stamp that list is checked against.
 * A list's stamp is those of every family whose rows it shows (SHOWS), each
 * with its table's newest id (TOP_IDS).
 */
export function listStamps(
  db: Pick<PlatformDatabase, 'select'>,
  { replicas = false }: { replicas?: boolean } = {},
) {
  let seen: number | undefined;
  const last: Record<ListFamily, number> = { merchant: 0, service: 0, order: 0 };

  const read = sharedRead(async (): Promise<Record<ListFamily, string>> => {
    if (seen === undefined) {
      const start = (await eventBounds(db)).last;
      for (const family of FAMILIES) last[family] = start;
      seen = start;
    }
    // One statement: one round trip, and one view of the events and the tables.
    const rows = await db.select<{ id: number | null; type: string }>(
      `(SELECT id, type FROM events ${UNNUMBERED} WHERE id > ? ORDER BY id LIMIT ${READ_ROWS})
       UNION ALL (SELECT NULL, type FROM events ${UNNUMBERED} WHERE id IS NULL)
       UNION ALL ${TOP_IDS}`,
      [seen],
    );
    const waiting: Record<ListFamily, number> = { merchant: 0, service: 0, order: 0 };
    const tops: Record<ListFamily, number | null> = { merchant: null, service: null, order: null };
    let numbered = 0;
    for (const { id, type } of rows) {
      const dot = type.indexOf('.');
      if (dot === -1) {
        tops[type as ListFamily] = id;
        continue;
      }
      const family = type.slice(0, dot) as ListFamily;
      if (!FAMILIES.includes(family)) continue;
      if (id === null) {
        waiting[family] += 1;
        continue;
      }
      numbered += 1;
      last[family] = Math.max(last[family], Number(id));
      seen = Math.max(seen, Number(id));
    }
    if (numbered === READ_ROWS) for (const family of FAMILIES) last[family] = seen;
    const own = (family: ListFamily) => `${last[family]}.${waiting[family]}.${tops[family]}`;
    const stamps = {} as Record<ListFamily, string>;
    for (const family of FAMILIES) stamps[family] = SHOWS[family].map(own).join(' ');
    return stamps;
  });

  return {
    /**
     * The stamp of the rows `family`'s lists show, now: equal stamps, equal
     * rows. With replicas, none while the primary is down: the lists are
     * then read on a replica, and kept by no one.
     */
    async stamp(family: ListFamily): Promise<string | undefined> {
      try {
        return (await read())[family];
      } catch (err) {
        if (replicas && err instanceof StoreUnavailableError) return undefined;
        throw err;
      }
    },
  };
}
