import { LockConflictError } from '@svc/common';
import { describe, expect, it } from 'vitest';
import { keptKeys } from '../src/idempotency/kept-keys.js';
import { KeyInFlightError } from '../src/idempotency/key-errors.js';
import type { RequestKey } from '../src/idempotency/key-rows.js';
import { requestHash } from '../src/idempotency/request-key.js';
import type { PlatformDatabase } from '../src/store/database.js';

// The order of events a real race produces only now and then, laid out in turn:
// this instance's transaction gives way to the key's holder, and the holder
// commits before this instance asks whether the key is still held.
const body = { name: 'x' };
const key: RequestKey = { resource: 'order', key: 'k-1', requestHash: requestHash(body) };

/** A key store whose holder has just finished: nothing holds the key now. */
function keysAfterHolder(kept: { rowId: number; requestHash: Buffer } | undefined) {
  const db = {
    // The NOWAIT lock of the key's row is free; the key's row is `kept`'s, when any.
    select: async (sql: string) =>
      sql.includes('NOWAIT') || !kept
        ? []
        : [{ row_id: kept.rowId, request_hash: kept.requestHash, live: 1 }],
  } as unknown as PlatformDatabase;
  return keptKeys(db, 60);
}

const conflictingInsert = async (): Promise<number> => {
  throw new LockConflictError();
};

describe('a keyed create that gave way to the key holder', () => {
  it('replays the row the holder committed meanwhile', async () => {
    const keys = keysAfterHolder({ rowId: 42, requestHash: key.requestHash });
    expect(await keys.once(key, conflictingInsert)).toEqual({ id: 42, replayed: true });
  });

  it('answers the lock conflict itself when no key was kept (another lock was in the way)', async () => {
    const keys = keysAfterHolder(undefined);
    await expect(keys.once(key, conflictingInsert)).rejects.toBeInstanceOf(LockConflictError);
  });
});

describe('a key whose create runs on this instance', () => {
  it('is in flight at once, before any SQL, and free again once that create ends', async () => {
    const db = {
      select: async () => {
        throw new Error('no SQL for a key in flight here');
      },
    } as unknown as PlatformDatabase;
    const keys = keptKeys(db, 60);
    let finish: (id: number) => void = () => undefined;
    const first = keys.once(key, () => new Promise<number>((resolve) => (finish = resolve)));
    await expect(keys.once(key, async () => 8)).rejects.toBeInstanceOf(KeyInFlightError);
    await expect(keys.once({ ...key, resource: 'merchant' }, async () => 9)).resolves.toEqual({
      id: 9,
      replayed: false,
    });
    finish(7);
    expect(await first).toEqual({ id: 7, replayed: false });
    expect(await keys.once(key, async () => 8)).toEqual({ id: 8, replayed: false });
  });
});

describe('the keys kept alongside a shared INSERT', () => {
  const keys = keptKeys({} as PlatformDatabase, 60);
  const other: RequestKey = { ...key, key: 'a-0' };

  it('locks and writes the keys of one resource in key order, each with its row of the INSERT', () => {
    const [lock, written] = keys.keep([key, undefined, other]);
    expect(lock?.sql).toMatch(/FOR UPDATE NOWAIT$/);
    expect(lock?.values).toEqual(['order', 'a-0', 'k-1']);
    expect(written?.values).toEqual([
      ...['order', 'a-0', key.requestHash, 2, 60],
      ...['order', 'k-1', key.requestHash, 0, 60],
    ]);
    expect(keys.keep([undefined, undefined])).toEqual([]);
  });

  it('writes a key before a row that may wait, and names the row after its INSERT', () => {
    const { before, after } = keys.keepFirst(key);
    expect(before.map((statement) => statement.values)).toEqual([
      ['order', 'k-1'],
      ['order', 'k-1', key.requestHash, 60],
    ]);
    expect(before[0]?.sql).toMatch(/FOR UPDATE NOWAIT$/);
    expect(after).toEqual([
      {
        sql: expect.stringMatching(/^UPDATE idempotency_keys SET row_id = LAST_INSERT_ID\(\)/),
        values: ['order', 'k-1'],
      },
    ]);
  });

  it('refuses keys of two resources, which no one INSERT writes', () => {
    expect(() => keys.keep([key, { ...other, resource: 'merchant' }])).toThrow(
      'keep: the keys of one resource only',
    );
  });
});
