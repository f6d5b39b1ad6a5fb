import type { Statement } from '@svc/common';

/** The key space a key belongs to: the same key on two resources names two requests. */
export type KeyedResource = 'merchant' | 'service' | 'order';

/** A create's Idempotency-Key, to be kept with the row it writes. */
export interface RequestKey {
  resource: KeyedResource;
  key: string;
  /** SHA-256 of the request's body (request-key.ts). */
  requestHash: Buffer;
}

const KEY_ROW = '(resource = ? AND idempotency_key = ?)';
/** Row i of the INSERT just before, in the same transaction (see Database.insertRows). */
const KEEP_ROW =
  '(?, ?, ?, LAST_INSERT_ID() + ? * @@auto_increment_increment, NOW(3) + INTERVAL ? SECOND)';

/**
 * The keys' rows of one resource locked without waiting (one IN list: the
 * optimizer looks each key up once, where ORed pairs cost it more).
 */
const lockStatements: string[] = [];
const lockStatement = (rows: number) =>
  (lockStatements[rows] ??=
    `SELECT 1 FROM idempotency_keys WHERE resource = ? AND idempotency_key IN (${new Array(rows).fill('?').join(', ')}) FOR UPDATE NOWAIT`);
const INSERT_KEYS =
  'INSERT INTO idempotency_keys (resource, idempotency_key, request_hash, row_id, expires_at) VALUES ';
const insertStatements: string[] = [];
const insertStatement = (rows: number) =>
  (insertStatements[rows] ??= INSERT_KEYS + new Array(rows).fill(KEEP_ROW).join(', '));
/** A key written before its row (keepFirst), then given the row's id once the row's INSERT has run. */
const INSERT_FIRST = `${INSERT_KEYS}(?, ?, ?, 0, NOW(3) + INTERVAL ? SECOND)`;
const LINK_ROW = `UPDATE idempotency_keys SET row_id = LAST_INSERT_ID() WHERE ${KEY_ROW}`;

/**
 * The INSERT of each key with the id of the row its request wrote: key i
 * with row i of the INSERT that runs just before it in the same transaction
 * (none for a row sent without a key; no statement when no row has one),
 * kept `ttlSeconds`. One INSERT's rows are of one table, so their keys are
 * of one resource. Sorted, so two transactions that keep the same keys lock
 * them in one order. First the keys' rows are locked NOWAIT: a key that
 * another transaction is writing (a request with it in flight, on any
 * instance) fails this one at once with a LockConflictError, where the
 * INSERT would wait for that transaction's end, holding its connection and
 * every order it shares.
 */
export function keepStatements(keys: (RequestKey | undefined)[], ttlSeconds: number): Statement[] {
  const kept = keys.flatMap((key, row) => (key ? [{ key, row }] : []));
  const resource = kept[0]?.key.resource;
  if (resource === undefined) return [];
  if (kept.some(({ key }) => key.resource !== resource)) {
    throw new Error('keep: the keys of one resource only');
  }
  const sorted = kept.sort((a, b) => (a.key.key < b.key.key ? -1 : 1));
  return [
    {
      sql: lockStatement(sorted.length),
      values: [resource, ...sorted.map(({ key }) => key.key)],
    },
    {
      sql: insertStatement(sorted.length),
      values: sorted.flatMap(({ key, row }) => [
        resource,
        key.key,
        key.requestHash,
        row,
        ttlSeconds,
      ]),
    },
  ];
}

/**
 * A key kept around a row written on its own that may wait for a lock: the
 * key is locked NOWAIT and written `before` the row's INSERT, so from then on
 * the same key sent anywhere meets it held (a KeyInFlightError), whatever
 * this transaction waits for; `after` the INSERT it names the row.
 */
export function keepFirstStatements(
  key: RequestKey,
  ttlSeconds: number,
): { before: Statement[]; after: Statement[] } {
  return {
    before: [
      { sql: lockStatement(1), values: [key.resource, key.key] },
      { sql: INSERT_FIRST, values: [key.resource, key.key, key.requestHash, ttlSeconds] },
    ],
    after: [{ sql: LINK_ROW, values: [key.resource, key.key] }],
  };
}
