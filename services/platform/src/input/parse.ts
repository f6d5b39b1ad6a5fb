import { AppError } from '@svc/common';
import type { Request } from 'express';
import type { z } from 'zod';
import { NOT_JSON_TYPE } from '../http/messages.js';

/** Parses input with a schema; every problem is named in one 400 text. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const texts = new Set(result.error.issues.map((issue) => issue.message));
  throw new AppError(400, [...texts].join('; '));
}

/**
 * The parsed JSON body. A request without a body reads as `{}`, so each missing
 * field is named; a body the JSON parser skipped was sent with another type.
 */
export function jsonBody(req: Request): unknown {
  if (req.body !== undefined) return req.body;
  const length = Number(req.headers['content-length'] ?? 0);
  if (req.headers['transfer-encoding'] !== undefined || length > 0) {
    throw new AppError(415, NOT_JSON_TYPE);
  }
  return {};
}
