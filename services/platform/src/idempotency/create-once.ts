import { AppError, DuplicateEntryError, LockConflictError } from '@svc/common';
import type { Request, Response } from 'express';
import { KEY_IN_FLIGHT, KEY_REUSED } from './idempotency.messages.js';
import type {
  IdempotencyRepository,
  KeptKey,
  KeyedResource,
  RequestKey,
} from './idempotency.repository.js';
import { idempotencyKeyOf, requestHash } from './request-key.js';

/** Writes a row, keeping `key` with it in the same transaction when one is given. */
type Insert<T> = (input: T, key?: RequestKey) => Promise<number>;

/** A create's outcome: the row's id, and whether it was written by an earlier request. */
interface Created {
  id: number;
  replayed: boolean;
}

/** A key found expired is dropped and the create tried again; a third race answers 409. */
const ATTEMPTS = 3;

/**
 * Creates that an Idempotency-Key makes safe to retry. Without the header a
 * create runs as ever. With it, the row and its key are written in one
 * transaction, so a key is kept exactly when its row was written. A key
 * already kept answers with that row (the same body) or a 422 (another body);
 * a key whose first request is still running on this instance is a 409. On
 * another instance, the transaction finds the key's row locked and gives up at
 * once (idempotency.repository.ts), and a key whose row another transaction
 * still holds is a 409 too: no request waits for another's.
 */
export function createOnce(keys: IdempotencyRepository) {
  const inFlight = new Set<string>();

  /** The row a kept key names, or a 422 when the key came with another body. */
  function replayOf(kept: KeptKey, key: RequestKey): Created {
    if (!kept.requestHash.equals(key.requestHash)) throw new AppError(422, KEY_REUSED);
    return { id: kept.rowId, replayed: true };
  }

  async function keyed<T>(input: T, key: RequestKey, insert: Insert<T>): Promise<Created> {
    for (let attempt = 1; ; attempt++) {
      try {
        return { id: await insert(input, key), replayed: false };
      } catch (err) {
        if (err instanceof LockConflictError) {
          if (await keys.held(key)) throw new AppError(409, KEY_IN_FLIGHT, { cause: err });
          // The transaction that held the key may have committed it meanwhile: then
          // this is its replay; else the conflict was another lock's, answered as such.
          const kept = await keys.find(key);
          if (kept?.live) return replayOf(kept, key);
          throw err;
        }
        if (!(err instanceof DuplicateEntryError)) throw err;
        if (attempt === ATTEMPTS) throw new AppError(409, KEY_IN_FLIGHT, { cause: err });
      }
      const kept = await keys.find(key);
      if (kept?.live) return replayOf(kept, key);
      if (kept) await keys.dropExpired(key);
    }
  }

  /**
   * Resolves to the id of the row the request created, or created earlier;
   * then the answer says so in `Idempotent-Replayed: true`. `input` is the
   * parsed body; the key's request hash is taken from the body as sent.
   */
  return async function create<T>(
    req: Request,
    res: Response,
    resource: KeyedResource,
    input: T,
    insert: Insert<T>,
  ): Promise<number> {
    const key = idempotencyKeyOf(req);
    if (key === undefined) return insert(input);
    const name = `${resource} ${key}`;
    if (inFlight.has(name)) throw new AppError(409, KEY_IN_FLIGHT);
    inFlight.add(name);
    try {
      const requestKey = { resource, key, requestHash: requestHash(req.body) };
      const { id, replayed } = await keyed(input, requestKey, insert);
      if (replayed) res.set('Idempotent-Replayed', 'true');
      return id;
    } finally {
      inFlight.delete(name);
    }
  };
}

export type CreateOnce = ReturnType<typeof createOnce>;
