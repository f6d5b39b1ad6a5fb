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
  /** The whole list, as rows or as a stream of them. */
  all(): Promise<Row[] | AsyncIterable<Row>>;
  page(page: Page): Promise<Row[]>;
  count(): Promise<number>;
}

/** Answers a list; a page also carries the list's total in X-Total-Count. */
export async function sendList<Row>(res: Response, source: ListSource<Row>, page?: Page) {
  if (!page) {
    const rows = await source.all();
    // Rows already in memory go out in one piece, which is faster than row by row.
    if (Array.isArray(rows)) res.json(messageBody(200, '获取成功', rows));
    else await writeList(res, rows);
    return;
  }
  const [rows, total] = await Promise.all([source.page(page), source.count()]);
  res.set('X-Total-Count', String(total));
  res.set('Access-Control-Expose-Headers', 'X-Total-Count');
  res.json(messageBody(200, '获取成功', rows));
}

const CHUNK_CHARS = 64 * 1024;

/**
 * Writes `{"code":200,"message":"获取成功","data":[...]}` as the rows arrive, so a
 * list of megabytes is never held whole, as rows or as text.
 */
async function writeList<Row>(res: Response, rows: AsyncIterable<Row>) {
  res.type('json');
  let chunk = '{"code":200,"message":"获取成功","data":[';
  let separator = '';
  for await (const row of rows) {
    chunk += separator + JSON.stringify(row);
    separator = ',';
    if (chunk.length < CHUNK_CHARS) continue;
    // Leaving the loop ends the query and gives its connection back.
    if (res.destroyed) return;
    const flushed = res.write(chunk);
    chunk = '';
    if (!flushed && !(await drained(res))) return;
  }
  res.end(`${chunk}]}`);
}

/** True once the client can take more; false when it went away. */
function drained(res: Response): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (ok: boolean) => () => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = settle(true);
    const onClose = settle(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}
