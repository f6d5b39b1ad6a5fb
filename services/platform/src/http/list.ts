import type { Response } from 'express';
import { z } from 'zod';
import type { ListReads, Page } from '../db/page.js';
import type { Slot, Slots } from '../db/slots.js';
import { messageBody } from './envelopes.js';
import { asInteger, INT_MAX, Invalid, isBlank, rule } from './fields.js';
import { LISTED } from './messages.js';

export const DEFAULT_PAGE_SIZE = 20;
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
    description:
      'with page or pageSize: the number of rows in the whole list (for an order list of 10,000 rows or more, as counted up to a second before)',
    schema: z.int().min(0),
    required: false,
  },
};

/** Either parameter asks for a page; with neither the whole list comes back, as the spec has it. */
export function toPage(query: { page?: number; pageSize?: number }): Page | undefined {
  if (query.page === undefined && query.pageSize === undefined) return undefined;
  const limit = query.pageSize ?? DEFAULT_PAGE_SIZE;
  return { limit, offset: ((query.page ?? 1) - 1) * limit };
}

/**
 * Answers a list; a page also carries the list's total in X-Total-Count.
 *
 * A whole list first takes one of `wholeLists`' slots (or is refused, 503,
 * when the line stops moving). A list read whole (rows, or their
 * JSON text) gives the slot back as soon as MySQL has sent it; a streamed list holds it, with its
 * connection, until the answer is sent or the client is gone, and says
 * while it waits for its client to take more.
 */
export async function sendList<Row>(
  res: Response,
  list: ListReads<Row>,
  wholeLists: Slots,
  page?: Page,
) {
  if (!page) {
    const slot = await wholeLists.take();
    // A client that left while in line has had its close already: it would hold the slot for ever.
    if (res.destroyed) {
      slot.release();
      return;
    }
    res.once('close', slot.release);
    const rows = await list.all();
    if (Array.isArray(rows)) {
      slot.release();
      res.json(messageBody(200, LISTED, rows));
    } else if (Buffer.isBuffer(rows)) {
      slot.release();
      res.type('json').send(Buffer.concat([LIST_HEAD, rows, LIST_TAIL]));
    } else {
      await writeList(res, rows, slot);
    }
    return;
  }
  const [rows, total] = await Promise.all([list.page(page), list.count()]);
  res.set('X-Total-Count', String(total));
  res.json(messageBody(200, LISTED, rows));
}

const LIST_HEAD = Buffer.from(`{"code":200,"message":"${LISTED}","data":[`);
const LIST_TAIL = Buffer.from(']}');
const COMMA = Buffer.from(',');

/**
 * Writes `{"code":200,"message":"获取成功","data":[...]}` as the rows' text
 * arrives, so a list of megabytes is never held whole.
 */
async function writeList(res: Response, pieces: AsyncIterable<Buffer>, slot: Slot) {
  res.type('json');
  res.write(LIST_HEAD);
  let first = true;
  for await (const piece of pieces) {
    // Leaving the loop ends the query and gives its connection back.
    if (res.destroyed) return;
    if (!first) res.write(COMMA);
    first = false;
    if (!res.write(piece)) {
      slot.blocked();
      if (!(await drained(res))) return;
      slot.progressed();
    }
  }
  res.end(LIST_TAIL);
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
