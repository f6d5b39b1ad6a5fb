import { hash } from 'node:crypto';
import { IDEMPOTENCY_KEY } from './idempotency.messages.js';
import { KeyMalformedError } from './key-errors.js';
import type { KeyedResource, RequestKey } from './key-rows.js';

/** 1 to 255 visible ASCII characters; quoted, the same without `"` and `\`. */
const BARE_KEY = /^[!-~]{1,255}$/;
const QUOTED_KEY = /^"([!#-[\]-~]{1,255})"$/;

/**
 * A create's Idempotency-Key, with the hash of the body it came with;
 * undefined without the header, a KeyMalformedError (a 400) when it is malformed. The draft's
 * Structured Field form (a string in double quotes) names the key inside.
 * Node joins a repeated header with ", ", and a space is never part of a key,
 * so two headers are refused as one malformed value.
 */
export function requestKey(
  headers: Record<string, string | string[] | undefined>,
  body: unknown,
  resource: KeyedResource,
): RequestKey | undefined {
  const header = headers[IDEMPOTENCY_KEY];
  if (header === undefined) return undefined;
  if (typeof header !== 'string') throw new KeyMalformedError();
  const quoted = QUOTED_KEY.exec(header);
  const key = quoted
    ? (quoted[1] as string)
    : BARE_KEY.test(header) && !header.startsWith('"') && !header.endsWith('"')
      ? header
      : undefined;
  if (key === undefined) throw new KeyMalformedError();
  return { resource, key, requestHash: requestHash(body) };
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
