import type { PlatformDatabase } from '../database.js';
import { sharedRead } from '../shared-read.js';
import { eventBounds } from './event-rows.js';
import { UNNUMBERED } from './outbox.js';

/** The rows a list shows, by the first word of their events' types. */
export type ListFamily = 'merchant' | 'service' | 'order';

const FAMILIES: ListFamily[] = ['merchant', 'service', 'order'];

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
 */
export function listStamps(db: Pick<PlatformDatabase, 'select'>) {
  let seen: number | undefined;
  const last: Record<ListFamily, number> = { merchant: 0, service: 0, order: 0 };

  const read = sharedRead(async (): Promise<Record<ListFamily, string>> => {
    if (seen === undefined) {
      const start = (await eventBounds(db)).last;
      for (const family of FAMILIES) last[family] = start;
      seen = start;
    }
    const rows = await db.select<{ id: number | null; type: string }>(
      `(SELECT id, type FROM events ${UNNUMBERED} WHERE id > ? ORDER BY id LIMIT ${READ_ROWS})
       UNION ALL (SELECT NULL, type FROM events ${UNNUMBERED} WHERE id IS NULL)`,
      [seen],
    );
    const waiting: Record<ListFamily, number> = { merchant: 0, service: 0, order: 0 };
    let numbered = 0;
    for (const { id, type } of rows) {
      const family = type.slice(0, type.indexOf('.')) as ListFamily;
      if (id === null) {
        waiting[family] += 1;
        continue;
      }
      numbered += 1;
      last[family] = Number(id);
      seen = Math.max(seen, Number(id));
    }
    if (numbered === READ_ROWS) for (const family of FAMILIES) last[family] = seen;
    return {
      merchant: `${last.merchant}.${waiting.merchant}`,
      service: `${last.service}.${waiting.service}`,
      order: `${last.order}.${waiting.order}`,
    };
  });

  return {
    /** The family's stamp now: equal stamps, equal rows. */
    stamp: async (family: ListFamily): Promise<string> => (await read())[family],
  };
}

export type ListStamps = ReturnType<typeof listStamps>;
