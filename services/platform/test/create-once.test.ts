import { LockConflictError } from '@svc/common';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { createOnce } from '../src/idempotency/create-once.js';
import type { IdempotencyRepository, KeptKey } from '../src/idempotency/idempotency.repository.js';
import { requestHash } from '../src/idempotency/request-key.js';

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
function keysAfterHolder(kept: KeptKey | undefined): IdempotencyRepository {
  return {
    held: async () => false,
    find: async () => kept,
  } as unknown as IdempotencyRepository;
}

const conflictingInsert = async (): Promise<number> => {
  throw new LockConflictError();
};

describe('a keyed create that gave way to the key holder', () => {
  it('replays the row the holder committed meanwhile', async () => {
    const kept = { rowId: 42, requestHash: requestHash(body), live: true };
    const { res, headers } = response();
    const id = await createOnce(keysAfterHolder(kept))(req, res, 'order', body, conflictingInsert);
    expect(id).toBe(42);
    expect(headers).toEqual({ 'Idempotent-Replayed': 'true' });
  });

  it('answers the lock conflict itself when no key was kept (another lock was in the way)', async () => {
    const { res, headers } = response();
    const create = createOnce(keysAfterHolder(undefined));
    await expect(create(req, res, 'order', body, conflictingInsert)).rejects.toBeInstanceOf(
      LockConflictError,
    );
    expect(headers).toEqual({});
  });
});
