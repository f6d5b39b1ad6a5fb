import { messageBody } from '@svc/common';
import type { Response } from 'express';
import type { ListReads, Page } from '../../store/page.js';
import { LISTED } from '../messages.js';
import type { Slot, Slots } from './slots.js';

/**
 * Answers a list; a page also carries the list's total in X-Total-Count.
 *
 * A whole list first takes one of `wholeLists`' slots (or is refused with a
 * BusyError when the line stops moving). A list read whole (its rows' JSON
 * text) gives the slot back as soon as MySQL has sent it; a streamed list
 * holds it, with its connection, until the answer is sent or the client is
 * gone, and says while it waits for its client to take more.
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
    if (Buffer.isBuffer(rows)) {
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
