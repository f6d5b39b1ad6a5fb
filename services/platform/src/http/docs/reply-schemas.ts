import type { ResponseDoc } from '@svc/common';
import { z } from 'zod';
import { INT_MAX } from '../input.js';
import { LISTED, METHOD_NOT_ALLOWED, NOT_FOUND } from '../messages.js';

/** Zod schemas of the spec's success bodies, for the API document and its tests. */

/** An INT AUTO_INCREMENT key, or a reference to one. */
export const rowId = z.int().min(1).max(INT_MAX);

/** A TIMESTAMP as the lists write it (see store/row-fields.ts). */
export const timestamp = z.iso.datetime().meta({
  description: 'insertion time, ISO 8601 in UTC',
  examples: ['2026-11-22T19:15:04.000Z'],
});

/** `{ code: 200, message: '获取成功', data: [rows] }` */
export const listReply = (row: z.ZodType) =>
  z.strictObject({ code: z.literal(200), message: z.literal(LISTED), data: z.array(row) });

/** `{ code: 200, message, data: { id } }` for a created row. */
export const createdReply = (message: string) =>
  z.strictObject({
    code: z.literal(200),
    message: z.literal(message),
    data: z.strictObject({ id: rowId }),
  });

/** `{ code: 200, msg }` for a status change. */
export const changedReply = (msg: string) =>
  z.strictObject({ code: z.literal(200), msg: z.literal(msg) });

/** `{ code, message }`, the body of every answer outside the spec's envelopes; `message` any text unless given. */
export const messageReply = (code: number, message?: string) =>
  z.strictObject({
    code: z.literal(code),
    message: message === undefined ? z.string() : z.literal(message),
  });

/** Every path no route answers: HTTP 404. */
export const notFoundBody = messageReply(404, NOT_FOUND);

/** The 405 every route's path answers to another method (http/errors.ts). */
export const wrongMethod: ResponseDoc = {
  description: 'The path asked with another method; Allow names the methods it takes',
  schema: messageReply(405, METHOD_NOT_ALLOWED),
  example: { code: 405, message: METHOD_NOT_ALLOWED },
  headers: { Allow: { description: "the path's methods", schema: z.string() } },
};

/** The header of a page; without page and pageSize the whole list comes back and no header. */
export const pageHeaders = {
  'X-Total-Count': {
    description:
      'with page or pageSize: the number of rows in the whole list (for an order list of 10,000 rows or more, as counted up to a second before)',
    schema: z.int().min(0),
    required: false,
  },
};
