import { type Database, DuplicateEntryError, LockConflictError, type Statement } from '@svc/common';
import { KeyInFlightError, KeyReusedError } from './key-errors.js';
import { keepFirstStatements, keepStatements, type RequestKey } from './key-rows.js';

/** A create's outcome: the row's id, and whether it was written by an earlier request. */
export interface Created {
  id: number;
  replayed: boolean;
}

/** Writes a row, keeping `key` with it in the same transaction. */
type KeyedWrite = (key: RequestKey) => Promise<number>;

/** A key found expired is dropped and the create tried again; a third race is in flight. */
const ATTEMPTS = 3;
const SWEEP_ROWS = 1000;
const KEY_ROW = '(resource = ? AND idempotency_key = ?)';
/**
 * The kept keys (table idempotency_keys). A key is written by the same
 * transaction as the row its request created (`keep`, given to the insert),
 * with an expiry `ttlSeconds` after that, on the database's clock, so a key
 * is kept exactly when its row was written.
 */
export function keptKeys(db: Pick<Database, 'select' | 'update'>, ttlSeconds: number) {
  /** Keys whose create runs on this instance now, as `resource key`. */
  const inFlight = new Set<string>();

  async function find({ resource, key }: RequestKey) {
    const [row] = await db.select<{ row_id: number; request_hash: Buffer; live: number }>(
      `SELECT row_id, request_hash, expires_at > NOW(3) AS live
       FROM idempotency_keys WHERE resource = ? AND idempotency_key = ?`,
      [resource, key],
    );
    return row && { rowId: row.row_id, requestHash: row.request_hash, live: row.live === 1 };
  }

  /** True when another transaction holds the key's row: its request is in flight. */
  async function held({ resource, key }: RequestKey): Promise<boolean> {
    try {
      await db.select(`SELECT 1 FROM idempotency_keys WHERE ${KEY_ROW} FOR UPDATE NOWAIT`, [
        resource,
        key,
      ]);
      return false;
    } catch (err) {
      if (err instanceof LockConflictError) return true;
      throw err;
    }
  }

  /** The row a kept key names, or a KeyReusedError when the key came with another body. */
  function replayOf(kept: { rowId: number; requestHash: Buffer }, key: RequestKey): Created {
    if (!kept.requestHash.equals(key.requestHash)) throw new KeyReusedError();
    return { id: kept.rowId, replayed: true };
  }

  /** `write`, or the outcome of the key kept or held meanwhile (see once). */
  async function writeOnce(key: RequestKey, write: KeyedWrite): Promise<Created> {
    for (let attempt = 1; ; attempt++) {
      try {
        return { id: await write(key), replayed: false };
      } catch (err) {
        if (err instanceof LockConflictError) {
          if (await held(key)) throw new KeyInFlightError({ cause: err });
          // The transaction that held the key may have committed it meanwhile: then
          // this is its replay; else the conflict was another lock's, answered as such.
          const kept = await find(key);
          if (kept?.live) return replayOf(kept, key);
          throw err;
        }
        if (!(err instanceof DuplicateEntryError)) throw err;
        if (attempt === ATTEMPTS) throw new KeyInFlightError({ cause: err });
      }
      const kept = await find(key);
      if (kept?.live) return replayOf(kept, key);
      // Frees a key whose expiry has passed and that no sweep has removed yet.
      if (kept) {
        await db.update(
          'DELETE FROM idempotency_keys WHERE resource = ? AND idempotency_key = ? AND expires_at <= NOW(3)',
          [key.resource, key.key],
        );
      }
    }
  }

  return {
    /**
     * The INSERT of each key with the id of the row its request wrote: key i
     * with row i of the INSERT that runs just before it in the same
     * transaction (none for a row sent without a key; no statement when no
     * row has one). One INSERT's rows are of one table, so their keys are of
     * one resource. Sorted, so two transactions that keep the same keys lock
     * them in one order. First the keys' rows are locked NOWAIT: a key that
     * another transaction is writing (a request with it in flight, on any
     * instance) fails this one at once with a LockConflictError, where the
     * INSERT would wait for that transaction's end, holding its connection and
     * every order it shares.
     */
    keep: (keys: (RequestKey | undefined)[]): Statement[] => keepStatements(keys, ttlSeconds),

    /**
     * A key kept around a row written on its own that may wait for a lock:
     * the key is locked NOWAIT and written `before` the row's INSERT, so from
     * then on the same key sent anywhere meets it held (a KeyInFlightError),
     * whatever this transaction waits for; `after` the INSERT it names the row.
     */
    keepFirst: (key: RequestKey) => keepFirstStatements(key, ttlSeconds),

    /**
     * `write`, once per key (a create without a key does not come here). A
     * key already kept gives its row (a replay) or a KeyReusedError (another
     * body). A key whose create runs on this instance, or whose row another
     * transaction holds (its request in flight on another instance), is a
     * KeyInFlightError: at once, before any SQL here, and without waiting
     * there, so no request waits for another's.
     */
    async once(key: RequestKey, write: KeyedWrite): Promise<Created> {
      const name = `${key.resource} ${key.key}`;
      if (inFlight.has(name)) throw new KeyInFlightError();
      inFlight.add(name);
      try {
        return await writeOnce(key, write);
      } finally {
        inFlight.delete(name);
      }
    },

    /** Deletes every expired key, a thousand rows per statement; returns how many. */
    async sweep(): Promise<number> {
      let removed = 0;
      for (;;) {
        const rows = await db.update(
          `DELETE FROM idempotency_keys WHERE expires_at <= NOW(3) ORDER BY expires_at LIMIT ${SWEEP_ROWS}`,
          [],
        );
        removed += rows;
        if (rows < SWEEP_ROWS) return removed;
      }
    },
  };
}

export type KeptKeys = ReturnType<typeof keptKeys>;
