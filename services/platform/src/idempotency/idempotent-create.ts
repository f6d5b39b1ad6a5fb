import { hash } from 'node:crypto';
import { AppError, KeyInFlightError, KeyReusedError } from '@svc/common';
import type { Request, Response } from 'express';
import type { Created, KeyedResource, RequestKey } from '../db/kept-keys.js';
import { KEY_IN_FLIGHT, KEY_MALFORMED, KEY_REUSED } from './idempotency.messages.js';

/**
 * The header whose presence makes a create idempotent: the handlers look for
 * it, and call here only when it was sent.
 */
export const IDEMPOTENCY_KEY = 'idempotency-key';

/** 1 to 255 visible ASCII characters; quoted, the same without `"` and `\`. */
const BARE_KEY = /^[!-~]{1,255}$/;
const QUOTED_KEY = /^"([!#-[\]-~]{1,255})"$/;

/**
 * The HTTP side of creates that an Idempotency-Key makes safe to retry: the
 * header read, a key whose first request is still running on this instance
 * answered 409 before any SQL, and the repository's outcome answered: a replay
 * with `Idempotent-Replayed: true`, a key in flight elsewhere a 409, a key
 * reused with another body a 422. The row and its key are written by the
 * repository, in one transaction (db/kept-keys.ts).
 */
export function idempotentCreates() {
  const inFlight = new Set<string>();

  /**
   * Resolves to the id of the row the request created, or created earlier.
   * Called only for a request that sent the header; `write` is the
   * repository's create, given the request's key, whose request hash is taken
   * from the body as sent.
   */
  return async function create(
    req: Request,
    res: Response,
    resource: KeyedResource,
    write: (key: RequestKey) => Promise<Created>,
  ): Promise<number> {
    const key = idempotencyKeyOf(req);
    const name = `${resource} ${key}`;
    if (inFlight.has(name)) throw new AppError(409, KEY_IN_FLIGHT);
    inFlight.add(name);
    try {
      const { id, replayed } = await write({ resource, key, requestHash: requestHash(req.body) });
      if (replayed) res.set('Idempotent-Replayed', 'true');
      return id;
    } catch (err) {
      if (err instanceof KeyInFlightError) throw new AppError(409, KEY_IN_FLIGHT, { cause: err });
      if (err instanceof KeyReusedError) throw new AppError(422, KEY_REUSED);
      throw err;
    } finally {
      inFlight.delete(name);
    }
  };
}

export type IdempotentCreate = ReturnType<typeof idempotentCreates>;

/**
 * The request's Idempotency-Key, a 400 when it is malformed. The draft's
 * Structured Field form (a string in double quotes) names the key inside.
 * Node joins a repeated header with ", ", and a space is never part of a key,
 * so two headers are refused as one malformed value.
 */
function idempotencyKeyOf(req: Request): string {
  const header = req.headers[IDEMPOTENCY_KEY];
  if (typeof header !== 'string') throw new AppError(400, KEY_MALFORMED);
  const quoted = QUOTED_KEY.exec(header);
  if (quoted) return quoted[1] as string;
  if (BARE_KEY.test(header) && !header.startsWith('"') && !header.endsWith('"')) return header;
  throw new AppError(400, KEY_MALFORMED);
}

/**
 * SHA-256 of a JSON value written canonically (object keys sorted, no
 * whitespace), so two bodies that differ only in spacing or key order match.
 */
export function requestHash(body: unknown): Buffer {
  return hash('sha256', canonicalJson(body), 'buffer');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map(
        (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
      );
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
