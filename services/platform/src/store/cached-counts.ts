import type { Total } from './page.js';

interface CountCacheOptions {
  /** Lists shorter than this are counted every time. */
  floor: number;
  /** How long a long list's total is reused. */
  ttlMs: number;
}

/**
 * Totals for X-Total-Count. COUNT(*) takes time in proportion to the rows it
 * counts (some 60 ms for a third of a million orders), which every page of a
 * long list would otherwise pay. A list of at least `floor` rows has its total
 * reused for `ttlMs`, so such a total may miss writes made elsewhere in that
 * time; shorter lists are counted exactly on every request. Concurrent requests
 * share one count in flight, and `clear` (after this instance's own writes)
 * makes the next request count afresh. Only the request that started a count
 * has it `counted`.
 */
export function cachedCounts({ floor, ttlMs }: CountCacheOptions) {
  const entries = new Map<string, { total: Promise<number>; until: number }>();
  return {
    async get(key: string, countRows: () => Promise<number>): Promise<Total> {
      const hit = entries.get(key);
      if (hit && Date.now() < hit.until) return { rows: await hit.total, counted: false };
      const entry = { total: countRows(), until: Number.POSITIVE_INFINITY };
      entries.set(key, entry);
      entry.total.then(
        (total) => {
          if (entries.get(key) !== entry) return;
          if (total >= floor) entry.until = Date.now() + ttlMs;
          else entries.delete(key);
        },
        () => {
          if (entries.get(key) === entry) entries.delete(key);
        },
      );
      return { rows: await entry.total, counted: true };
    },
    clear(): void {
      entries.clear();
    },
  };
}

export type CachedCounts = ReturnType<typeof cachedCounts>;
