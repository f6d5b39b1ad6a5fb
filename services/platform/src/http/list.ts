import { messageBody } from '@svc/common';
import type { Response } from 'express';
import { z } from 'zod';
import type { Page } from '../db/page.js';
import { asInteger, INT_MAX, Invalid, isBlank, rule } from './fields.js';

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

const page = rule((input) => {
  if (isBlank(input)) return undefined;
  const value = asInteger(input);
  return value !== undefined && value >= 1 && value <= INT_MAX
    ? value
    : new Invalid('page must be a positive integer');
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

/** The header of a page; without page and pageSize the whole list comes back and no header. */
export const pageHeaders = {
  'X-Total-Count': {
    description: 'with page or pageSize: the number of rows in the whole list',
    schema: z.int().min(0),
  },
};

/** Either parameter asks for a page; with neither the whole list comes back, as the spec has it. */
export function toPage(query: { page?: number; pageSize?: number }): Page | undefined {
  if (query.page === undefined && query.pageSize === undefined) return undefined;
  const limit = query.pageSize ?? DEFAULT_PAGE_SIZE;
  return { limit, offset: ((query.page ?? 1) - 1) * limit };
}

export interface ListSource<Row> {
  rows(page?: Page): Promise<Row[]>;
  count(): Promise<number>;
}

/** Answers a list; a page also carries the list's total in X-Total-Count. */
export async function sendList<Row>(res: Response, source: ListSource<Row>, page?: Page) {
  if (!page) {
    res.json(messageBody(200, '获取成功', await source.rows()));
    return;
  }
  const [rows, total] = await Promise.all([source.rows(page), source.count()]);
  res.set('X-Total-Count', String(total));
  res.set('Access-Control-Expose-Headers', 'X-Total-Count');
  res.json(messageBody(200, '获取成功', rows));
}
