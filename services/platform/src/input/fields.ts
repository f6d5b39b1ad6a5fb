import { z } from 'zod';
import { notPositive } from '../http/messages.js';

/** The largest value of a MySQL INT column. */
export const INT_MAX = 2_147_483_647;
const PRICE_MAX = '99999999.99';
export const BAD_PRICE = 'price must be a non-negative number with at most 2 decimals';
const DIGITS = /^\d+$/;
const PRICE = /^\d+(\.\d{1,2})?$/;

/** What a hand-written rule returns instead of a value: the text naming the field. */
export class Invalid {
  constructor(readonly message: string) {}
}

/**
 * A field checked by hand, for inputs zod's primitives do not express (numbers
 * sent as text). zod rejects an absent key unless the rule ends in
 * `.optional()` or `.default()`, which answer for it without the check. zod
 * cannot see inside `check`, so each rule states in `.meta()` what it accepts,
 * for the API document.
 */
export function rule<T>(check: (input: unknown) => T | Invalid) {
  return z.unknown().transform((input, ctx): T => {
    const result = check(input);
    if (!(result instanceof Invalid)) return result;
    ctx.addIssue({ code: 'custom', message: result.message });
    return z.NEVER;
  });
}

export const isBlank = (input: unknown) => input === undefined || input === null || input === '';

/** Clients send numbers as JSON numbers or as digit strings (form fields, queries). */
export function asInteger(input: unknown): number | undefined {
  if (typeof input === 'number') return Number.isInteger(input) ? input : undefined;
  if (typeof input === 'string' && DIGITS.test(input.trim())) return Number(input.trim());
  return undefined;
}

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
  return rule((input) => {
    if (isBlank(input)) return new Invalid(`${field} is required`);
    const id = asInteger(input);
    return id !== undefined && id >= 1 && id <= INT_MAX ? id : new Invalid(notPositive(field));
  }).meta({
    type: ['integer', 'string'],
    minimum: 1,
    maximum: INT_MAX,
    description: 'a positive integer, as a JSON number or a digit string',
  });
}

/** The `:id` of a path: digits only, a positive INT. */
export const pathId = rule((input) => {
  const id = typeof input === 'string' && DIGITS.test(input) ? Number(input) : 0;
  return id >= 1 && id <= INT_MAX ? id : new Invalid(notPositive('id'));
}).meta({ type: 'integer', minimum: 1, maximum: INT_MAX });

/** A DECIMAL(10,2) amount, kept as text so no float ever rounds it. */
export const priceField = rule((input) => {
  if (isBlank(input)) return new Invalid('price is required');
  const text =
    typeof input === 'number' ? String(input) : typeof input === 'string' ? input.trim() : '';
  if (!PRICE.test(text)) {
    return new Invalid(BAD_PRICE);
  }
  return Number(text) <= Number(PRICE_MAX)
    ? text
    : new Invalid(`price must be at most ${PRICE_MAX}`);
}).meta({
  type: ['number', 'string'],
  minimum: 0,
  maximum: Number(PRICE_MAX),
  pattern: PRICE.source,
  description: `0 to ${PRICE_MAX} with at most 2 decimals, as a JSON number or a numeric string`,
});

/** Omitted, null or empty is the column default 0. */
export const stockField = rule((input) => {
  if (isBlank(input)) return 0;
  const stock = asInteger(input);
  if (stock === undefined || stock < 0) return new Invalid('stock must be a non-negative integer');
  return stock <= INT_MAX ? stock : new Invalid(`stock must be at most ${INT_MAX}`);
})
  .default(0)
  .meta({
    type: ['integer', 'string', 'null'],
    minimum: 0,
    maximum: INT_MAX,
    description: 'omitted, null or empty is 0; a JSON number or a digit string',
  });
