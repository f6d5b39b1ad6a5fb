import { LockConflictError, type Statement } from '@svc/common';
import type { PlatformDatabase } from '../db/database.js';

/** The key space a key belongs to: the same key on two resources names two requests. */
export type KeyedResource = 'merchant' | 'service' | 'order';

/** A create's Idempotency-Key, to be kept with the row it writes. */
export interface RequestKey {
  resource: KeyedResource;
  key: string;
  /** SHA-256 of the request's body (see request-key.ts). */
  requestHash: Buffer;
}

/** A key kept by a create that wrote a row. */
export interface KeptKey {
  rowId: number;
  requestHash: Buffer;
  /** False once its expiry has passed: the key is free again. */
  live: boolean;
}

const SWEEP_ROWS = 1000;
const KEY_ROW = '(resource = ? AND idempotency_key = ?)';
/** Row i of the INSERT just before, in the same transaction (see Database.insert). */
const KEEP_ROW =
  '(?, ?, ?, LAST_INSERT_ID() + ? * @@auto_increment_increment, NOW(3) + INTERVAL ? SECOND)';

/**
 * The kept keys (table idempotency_keys). A key is written by the same
 * transaction as the row its request created (`keep`, given to the insert),
 * with an expiry `ttlSeconds` after that, on the database's clock.
 */
export function idempotencyRepository(db: PlatformDatabase, ttlSeconds: number) {
  const statements: string[] = [];
  // Two statements: the keys' rows locked without waiting, then the keys written.
  const keepStatement = (rows: number) =>
    (statements[rows] ??=
      `SELECT 1 FROM idempotency_keys WHERE ${new Array(rows).fill(KEY_ROW).join(' OR ')} FOR UPDATE NOWAIT;\n` +
      'INSERT INTO idempotency_keys (resource, idempotency_key, request_hash, row_id, expires_at) VALUES ' +
      new Array(rows).fill(KEEP_ROW).join(', '));

  return {
    /**
     * The INSERT of each key with the id of the row its request wrote, row
     * `row` of the INSERT that runs just before it in the same transaction.
     * Sorted, so two transactions that keep the same keys lock them in one order.
     * First the keys' rows are locked NOWAIT: a key that another transaction
     * is writing (a request with it in flight, on any instance) fails this one
     * at once with a LockConflictError, where the INSERT would wait for that
     * transaction's end, holding its connection and every order it shares.
     */
    keep(kept: { key: RequestKey; row: number }[]): Statement {
      // A space sorts below every key character: the primary key's own order.
      const name = ({ key }: { key: RequestKey }) => `${key.resource} ${key.key}`;
      const sorted = [...kept].sort((a, b) => (name(a) < name(b) ? -1 : 1));
      return {
        sql: keepStatement(sorted.length),
        values: [
          ...sorted.flatMap(({ key }) => [key.resource, key.key]),
          ...sorted.flatMap(({ key, row }) => [
            key.resource,
            key.key,
            key.requestHash,
            row,
            ttlSeconds,
          ]),
        ],
      };
    },

    async find({ resource, key }: RequestKey): Promise<KeptKey | undefined> {
      const [row] = await db.select<{ row_id: number; request_hash: Buffer; live: number }>(
        `SELECT row_id, request_hash, expires_at > NOW(3) AS live
         FROM idempotency_keys WHERE resource = ? AND idempotency_key = ?`,
        [resource, key],
      );
      return row && { rowId: row.row_id, requestHash: row.request_hash, live: row.live === 1 };
    },

    /** True when another transaction holds the key's row: its request is in flight. */
    async held({ resource, key }: RequestKey): Promise<boolean> {
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
    },

    /** Frees a key whose expiry has passed and that no sweep has removed yet. */
    async dropExpired({ resource, key }: RequestKey): Promise<void> {
      await db.update(
        'DELETE FROM idempotency_keys WHERE resource = ? AND idempotency_key = ? AND expires_at <= NOW(3)',
        [resource, key],
      );
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

export type IdempotencyRepository = ReturnType<typeof idempotencyRepository>;
