import { AppError, messageBody } from '@svc/common';
import type { Request, Response } from 'express';
import { LISTED } from '../http/messages.js';
import { CURSOR_MALFORMED, CURSOR_OTHER_STATUS } from './order.messages.js';
import type { OrderRepository, RowPosition } from './order.repository.js';
import { decodeCursor, encodeCursor } from './order-cursor.js';

/** A walk's request: the cursor of the page before (none for the first page) and the page's size. */
interface Walk {
  cursor: string | undefined;
  limit: number;
}

/**
 * Answers one page of a walk through the order list by cursor. Each page
 * reads its rows after the last row of the page before, so a deep page costs
 * what the first does, and a row added meanwhile (newer than the walk's start)
 * never shifts the rows after it. The first page carries X-Total-Count; every
 * page but the last carries X-Next-Cursor and a Link to the next. One row more
 * than the page is read to know whether a next page exists.
 */
export async function sendWalkPage(
  req: Request,
  res: Response,
  orders: OrderRepository,
  status: number | undefined,
  { cursor, limit }: Walk,
) {
  const secret = await orders.cursorSecret();
  const after = cursor === undefined ? undefined : positionOf(secret, cursor, status);
  const list = orders.list(status);
  const [rows, total] = await Promise.all([
    list.walk(after, limit + 1),
    after ? undefined : list.count(),
  ]);
  if (total !== undefined) res.set('X-Total-Count', String(total));
  const last = rows.length > limit ? rows[limit - 1] : undefined;
  if (last) {
    rows.length = limit;
    const next = encodeCursor(secret, {
      status,
      createTime: Date.parse(last.create_time) / 1000,
      id: last.id,
    });
    res.set('X-Next-Cursor', next);
    res.set('Link', `<${nextPage(req, next)}>; rel="next"`);
  }
  res.json(messageBody(200, LISTED, rows));
}

function positionOf(secret: Buffer, cursor: string, status: number | undefined): RowPosition {
  const position = decodeCursor(secret, cursor);
  if (!position) throw new AppError(400, CURSOR_MALFORMED);
  if (position.status !== status) throw new AppError(400, CURSOR_OTHER_STATUS);
  return position;
}

/** The same list with the next cursor: its path and parameters as asked, `cursor` replaced. */
function nextPage(req: Request, cursor: string): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(req.query)) {
    if (name !== 'cursor' && typeof value === 'string') params.append(name, value);
  }
  params.append('cursor', cursor);
  return `${req.baseUrl}${req.path}?${params}`;
}
