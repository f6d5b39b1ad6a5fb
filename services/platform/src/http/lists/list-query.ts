import { z } from 'zod';
import type { Page } from '../../store/page.js';
import { digitsAsNumber, INT_MAX, isBlank } from '../input.js';
import { notPositive } from '../messages.js';

export const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

const PAGE_TEXT = notPositive('page');
const PAGE_SIZE_TEXT = `pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`;

/** Omitted or empty is no value; digits are a number. */
const asNumber = (input: unknown) => (isBlank(input) ? undefined : digitsAsNumber(input));

const page = z
  .preprocess(asNumber, z.int(PAGE_TEXT).min(1, PAGE_TEXT).max(INT_MAX, PAGE_TEXT).optional())
  .meta({ description: 'the page, from 1' });

const pageSize = z
  .preprocess(
    asNumber,
    z.int(PAGE_SIZE_TEXT).min(1, PAGE_SIZE_TEXT).max(MAX_PAGE_SIZE, PAGE_SIZE_TEXT).optional(),
  )
  .meta({ description: `rows per page, default ${DEFAULT_PAGE_SIZE}` });

/** The optional `page` and `pageSize` of every list query. */
export const pageQuery = { page, pageSize };

/** Either parameter asks for a page; with neither the whole list comes back, as the spec has it. */
export function toPage(query: { page?: number; pageSize?: number }): Page | undefined {
  if (query.page === undefined && query.pageSize === undefined) return undefined;
  const limit = query.pageSize ?? DEFAULT_PAGE_SIZE;
  return { limit, offset: ((query.page ?? 1) - 1) * limit };
}
