import { AppError } from '@svc/common';
import type { z } from 'zod';
import { NOT_AN_OBJECT } from '../http/messages.js';

/**
 * The body as the schema's type, or a 400 whose message names each bad field
 * by its JSON key (`body` when the body is not a JSON object at all).
 */
export function parseBody<S extends z.ZodObject>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError(400, NOT_AN_OBJECT);
  }
  return parseFields(schema, body);
}

/** The query string's parameters as the schema's type, or a 400 naming each bad one. */
export function parseQuery<S extends z.ZodObject>(schema: S, query: object): z.infer<S> {
  return parseFields(schema, query);
}

function parseFields<S extends z.ZodObject>(schema: S, fields: object): z.infer<S> {
  const result = schema.safeParse(fields);
  if (result.success) return result.data;
  const message = result.error.issues
    .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    .join('; ');
  throw new AppError(400, message);
}
