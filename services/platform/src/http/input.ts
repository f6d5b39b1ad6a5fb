/**
 * The platform's input: the JSON body, parseInput (a schema's every problem
 * in one 400 text), a route's input parsed by its schemas, and the field
 * rules the resources' schemas share.
 */
import { AppError } from '@svc/common';
import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { NOT_JSON_TYPE, notPositive } from './messages.js';

/** Parses input with a schema; every problem is named in one 400 text. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const texts = new Set(result.error.issues.map((issue) => issue.message));
  throw new AppError(400, [...texts].join('; '));
}

/**
 * A route's handler: the request, the answer, and what the route's own
 * schemas parsed (`{ params, query, body }`, see withInput), typed by the
 * handler with the schemas' output types.
 */
export type RouteHandler = (req: Request, res: Response, input: never) => unknown;

/** The schemas a route parses its input with (its table entry's). */
interface RouteSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

/**
 * The route's handler, given the input its schemas parse: the path's
 * parameters, the query and the JSON body, in that order (the first that
 * breaks a rule is the answer), each absent when the route has no schema for it.
 */
export function withInput(route: RouteSchemas, handle: RouteHandler): RequestHandler {
  return (req, res) =>
    handle(req, res, {
      params: route.params && parseInput(route.params, req.params),
      query: route.query && parseInput(route.query, req.query),
      body: route.body && parseInput(route.body, jsonBody(req)),
    } as never);
}

/**
 * The parsed JSON body. A request without a body reads as `{}`, so each missing
 * field is named; a body the JSON parser skipped was sent with another type.
 */
function jsonBody(req: Request): unknown {
  if (req.body !== undefined) return req.body;
  const length = Number(req.headers['content-length'] ?? 0);
  if (req.headers['transfer-encoding'] !== undefined || length > 0) {
    throw new AppError(415, NOT_JSON_TYPE);
  }
  return {};
}

/** The largest value of a MySQL INT column. */
export const INT_MAX = 2_147_483_647;

/** Omitted, null and empty are one: nothing sent. */
export const isBlank = (input: unknown) => input === undefined || input === null || input === '';

/**
 * Text that is exactly `pattern` as its number, for the number schema after
 * it; anything else goes on as it came, for that schema to refuse.
 */
export const textAsNumber = (pattern: RegExp) => (input: unknown) =>
  typeof input === 'string' && pattern.test(input) ? Number(input) : input;

/** Clients send numbers as JSON numbers or as digits, spaces around allowed (form fields, queries). */
export const digitsAsNumber = (input: unknown) =>
  typeof input === 'string' && /^\d+$/.test(input.trim()) ? Number(input) : input;

/** Column lengths count characters, as utf8mb4 VARCHAR does, not UTF-16 units. */
const fitsIn = (max: number) => (text: string) => [...text].length <= max;

export function requiredText(field: string, max: number) {
  return z
    .string({
      error: (issue) =>
        isBlank(issue.input) ? `${field} is required` : `${field} must be a string`,
    })
    .trim()
    .min(1, `${field} is required`)
    .refine(fitsIn(max), `${field} must be at most ${max} characters`)
    .meta({ maxLength: max, description: 'trimmed; not empty' });
}

/** Omitted, null, empty or blank is stored as NULL. */
export function optionalText(field: string, max: number) {
  return z
    .string({ error: `${field} must be a string` })
    .trim()
    .refine(fitsIn(max), `${field} must be at most ${max} characters`)
    .nullish()
    .transform((text) => text || null)
    .meta({ maxLength: max, description: 'trimmed; omitted, null or empty is stored as null' });
}

/** A row id in a body: a positive INT. */
export function idField(field: string) {
  const notId = notPositive(field);
  const id = z
    .int({ error: (issue) => (isBlank(issue.input) ? `${field} is required` : notId) })
    .min(1, notId)
    .max(INT_MAX, notId)
    .meta({
      type: ['integer', 'string'],
      description: 'a positive integer, as a JSON number or a digit string',
    });
  return z.preprocess(digitsAsNumber, id);
}

const NOT_AN_ID = notPositive('id');

/** The `:id` of a path: digits only, a positive INT. */
export const pathId = z.preprocess(
  textAsNumber(/^\d+$/),
  z.int(NOT_AN_ID).min(1, NOT_AN_ID).max(INT_MAX, NOT_AN_ID),
);

/** The `:id` of a path as a route's params. */
export const idParams = z.object({ id: pathId });

/** The `limit` of a list read in parts: 1 to 500. */
export const limitField = (text: string) =>
  z
    .string(text)
    .regex(/^\d{1,3}$/, text)
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= 500, text);
