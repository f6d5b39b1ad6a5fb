import type { Page } from '../db/page.js';
import { notPositive } from '../http/messages.js';
import { asInteger, INT_MAX, Invalid, isBlank, rule } from '../input/fields.js';

export const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

const page = rule((input) => {
  if (isBlank(input)) return undefined;
  const value = asInteger(input);
  return value !== undefined && value >= 1 && value <= INT_MAX
    ? value
    : new Invalid(notPositive('page'));
})
  .optional()
  .meta({ type: 'integer', minimum: 1, maximum: INT_MAX, description: 'the page, from 1' });

const pageSize = rule((input) => {
  if (isBlank(input)) return undefined;
  const value = asInteger(input);
  return value !== undefined && value >= 1 && value <= MAX_PAGE_SIZE
    ? value
    : new Invalid(`pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`);
})
  .optional()
  .meta({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    description: `rows per page, default ${DEFAULT_PAGE_SIZE}`,
  });

/** The optional `page` and `pageSize` of every list query. */
export const pageQuery = { page, pageSize };

/** Either parameter asks for a page; with neither the whole list comes back, as the spec has it. */
export function toPage(query: { page?: number; pageSize?: number }): Page | undefined {
  if (query.page === undefined && query.pageSize === undefined) return undefined;
  const limit = query.pageSize ?? DEFAULT_PAGE_SIZE;
  return { limit, offset: ((query.page ?? 1) - 1) * limit };
}
