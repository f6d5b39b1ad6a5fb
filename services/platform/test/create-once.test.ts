import { LockConflictError } from '@svc/common';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import type { PlatformDatabase } from '../src/db/database.js';
import { keptKeys } from '../src/db/kept-keys.js';
import { idempotentCreates, requestHash } from '../src/idempotency/idempotent-create.js';

// The order of events a real race produces only now and then, laid out in turn:
// this instance's transaction gives way to the key's holder twice, and the holder
// commits before this instance asks whether the key is still held.
const body = { name: 'x' };
const req = { headers: { 'idempotency-key': 'k-1' }, body } as unknown as Request;
const response = () => {
  const headers: Record<string, string> = {};
  const res = { set: (name: string, value: string) => (headers[name] = value) };
  return { res: res as unknown as Response, headers };
};

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
    const keys = keysAfterHolder({ rowId: 42, requestHash: requestHash(body) });
    const { res, headers } = response();
    const id = await idempotentCreates()(req, res, 'order', (key) =>
      keys.once(key, conflictingInsert),
    );
    expect(id).toBe(42);
    expect(headers).toEqual({ 'Idempotent-Replayed': 'true' });
  });

  it('answers the lock conflict itself when no key was kept (another lock was in the way)', async () => {
    const { res, headers } = response();
    const keys = keysAfterHolder(undefined);
    const create = idempotentCreates();
    await expect(
      create(req, res, 'order', (key) => keys.once(key, conflictingInsert)),
    ).rejects.toBeInstanceOf(LockConflictError);
    expect(headers).toEqual({});
  });
});
