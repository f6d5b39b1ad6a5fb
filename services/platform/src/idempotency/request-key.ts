import { hash } from 'node:crypto';
import { AppError } from '@svc/common';
import type { Request } from 'express';
import { KEY_MALFORMED } from './idempotency.messages.js';

/** 1 to 255 visible ASCII characters; quoted, the same without `"` and `\`. */
const BARE_KEY = /^[!-~]{1,255}$/;
const QUOTED_KEY = /^"([!#-[\]-~]{1,255})"$/;

/**
 * The request's Idempotency-Key: undefined without the header, a 400 when it
 * is malformed. The draft's Structured Field form (a string in double quotes)
 * names the key inside. Node joins a repeated header with ", ", and a space is
 * never part of a key, so two headers are refused as one malformed value.
 */
export function idempotencyKeyOf(req: Request): string | undefined {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return undefined;
  if (typeof header !== 'string') throw new AppError(400, KEY_MALFORMED);
  const quoted = QUOTED_KEY.exec(header);
  if (quoted) return quoted[1];
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
