import { messageBody } from '@svc/common';
import type { Request, Response } from 'express';
import type { ListFamily } from '../../store/events/list-stamps.js';
import type { ListReads, Page, Total } from '../../store/page.js';
import { LISTED } from '../messages.js';
import type { RouterDeps } from '../router-deps.js';
import type { BuiltList, ListAnswer } from './kept-lists.js';
import type { Slot, Slots } from './slots.js';

const LIST_HEAD = Buffer.from(`{"code":200,"message":"${LISTED}","data":[`);
const LIST_TAIL = Buffer.from(']}');
const COMMA = Buffer.from(',');

/**
 * `{ code: 200, message: '获取成功', data: rows }` as res.json would write it,
 * and its headers, with the list's total in X-Total-Count when it has one.
 */
export const listed = (
  rows: unknown,
  headers: Record<string, string>,
  total?: Total,
): ListAnswer => ({
  body: Buffer.from(JSON.stringify(messageBody(200, LISTED, rows))),
  headers: total ? { ...headers, 'X-Total-Count': String(total.rows) } : headers,
  keep: total?.counted ?? true,
});

/**
 * Answers a list of `family`'s rows, from the kept bodies while unchanged
 * (kept-lists.ts); a page also carries the list's total in X-Total-Count.
 *
 * A whole list read from the database first takes one of `wholeLists`'
 * slots (or is refused with a BusyError when the line stops moving). A list
 * read whole (its rows' JSON text) gives the slot back as soon as MySQL has
 * sent it; a streamed one holds it, with its connection, until it is read,
 * and one longer than the kept bodies may hold is sent as it arrives, saying
 * while it waits for its client to take more, and kept by no one.
 */
export function sendList<Row>(
  req: Request,
  res: Response,
  list: ListReads<Row>,
  { wholeLists, kept }: RouterDeps,
  family: ListFamily,
  page?: Page,
): Promise<void> {
  return kept.send(req, res, family, async () => {
    if (page) {
      const [rows, total] = await Promise.all([list.page(page), list.count()]);
      return listed(rows, {}, total);
    }
    return wholeList(res, list, wholeLists, kept.holds);
  });
}

async function wholeList<Row>(
  res: Response,
  list: ListReads<Row>,
  wholeLists: Slots,
  holds: number,
): Promise<BuiltList> {
  const slot = await wholeLists.take();
  // A client that left while in line has had its close already: it would hold the slot for ever.
  if (res.destroyed) {
    slot.release();
    return undefined;
  }
  res.once('close', slot.release);
  const rows = await list.all();
  if (Buffer.isBuffer(rows)) {
    slot.release();
    return { body: Buffer.concat([LIST_HEAD, rows, LIST_TAIL]), headers: {}, keep: true };
  }
  const pieces: Buffer[] = [LIST_HEAD];
  let length = LIST_HEAD.length;
  const iterator = rows[Symbol.asyncIterator]();
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    if (pieces.length > 1) pieces.push(COMMA);
    pieces.push(next.value);
    length += next.value.length + 1;
    if (length > holds) return { stream: () => streamOn(res, pieces, iterator, slot) };
  }
  slot.release();
  pieces.push(LIST_TAIL);
  return { body: Buffer.concat(pieces), headers: {}, keep: true };
}

/**
 * Writes what was read of a list too long to hold, then the rest as it
 * arrives, so a list of megabytes is never held whole. Leaving the loop ends
 * the query and gives its connection back.
 */
async function streamOn(
  res: Response,
  sent: Buffer[],
  rest: AsyncIterator<Buffer>,
  slot: Slot,
): Promise<void> {
  res.type('json');
  res.write(Buffer.concat(sent));
  for (let next = await rest.next(); !next.done; next = await rest.next()) {
    if (res.destroyed) {
      await rest.return?.();
      return;
    }
    res.write(COMMA);
    if (!res.write(next.value)) {
      slot.blocked();
      if (!(await drained(res))) {
        await rest.return?.();
        return;
      }
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
