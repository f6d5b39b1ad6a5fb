import {
  DuplicateEntryError,
  LockConflictError,
  MissingReferenceError,
  OutcomeUnknownError,
  StoreUnavailableError,
} from './errors.js';

/** The driver's code for a statement that ran past its bound. */
const TIMED_OUT = 'PROTOCOL_SEQUENCE_TIMEOUT';
const OUTCOME_UNKNOWN = 'OUTCOME_UNKNOWN';

/**
 * A statement that ran past its bound and was stopped before it could write,
 * as the driver reports one: isMysqlUnavailable is true for it.
 */
export function queryTimedOut(): Error {
  return Object.assign(new Error('Query inactivity timeout'), { code: TIMED_OUT });
}

/** A write whose answer never came: it may have committed (see statementOn). */
export function outcomeUnknown(cause?: unknown): Error {
  return Object.assign(new Error('the write was sent and its answer never came', { cause }), {
    code: OUTCOME_UNKNOWN,
  });
}

/** Codes of a MySQL server that is down, unreachable or too slow to answer. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  TIMED_OUT,
  'POOL_CLOSED',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
]);

// mysql2 gives its full pool queue no code, only this text.
const QUEUE_FULL = 'Queue limit reached.';

/**
 * True when a mysql2 error means the server could not answer (down, hung, or
 * every connection busy and the queue full), rather than that the query was wrong.
 */
export function isMysqlUnavailable(err: unknown): boolean {
  const { fatal, code, message } = (err ?? {}) as {
    fatal?: unknown;
    code?: unknown;
    message?: unknown;
  };
  return (
    fatal === true || (typeof code === 'string' && UNREACHABLE.has(code)) || message === QUEUE_FULL
  );
}

/** ER_DUP_ENTRY */
const DUPLICATE_ENTRY = 1062;
/** ER_NO_REFERENCED_ROW and ER_NO_REFERENCED_ROW_2: a foreign key finds no row. */
const MISSING_REFERENCE = new Set([1216, 1452]);

/**
 * ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT (also MariaDB's answer to a NOWAIT
 * lock that is taken) and MySQL's ER_LOCK_NOWAIT.
 */
const LOCK_CONFLICT = new Set([1213, 1205, 3572]);

/**
 * A driver failure as the domain names it: a write whose answer never came is
 * an OutcomeUnknownError, a server out of reach (or too slow) a
 * StoreUnavailableError, a unique key taken a DuplicateEntryError, a foreign
 * key that finds no row a MissingReferenceError, a lost deadlock or lock wait
 * a LockConflictError. Anything else is a bug, returned as it is for the
 * service to answer as one.
 */
export function storeFailure(err: unknown): unknown {
  if ((err as { code?: unknown } | null)?.code === OUTCOME_UNKNOWN) {
    return new OutcomeUnknownError('mysql', err);
  }
  if (isMysqlUnavailable(err)) return new StoreUnavailableError('mysql', err);
  const errno = (err as { errno?: unknown } | null)?.errno;
  if (errno === DUPLICATE_ENTRY) return new DuplicateEntryError({ cause: err });
  if (typeof errno === 'number' && LOCK_CONFLICT.has(errno)) {
    return new LockConflictError({ cause: err });
  }
  if (typeof errno === 'number' && MISSING_REFERENCE.has(errno)) {
    return new MissingReferenceError(undefined, undefined, { cause: err });
  }
  return err;
}
