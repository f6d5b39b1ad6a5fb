import { z } from 'zod';
import {
  changedReply,
  createdReply,
  listReply,
  rowId,
  timestamp,
} from '../http/docs/reply-schemas.js';
import { idField, isBlank, requiredText } from '../http/input.js';
import { DEFAULT_PAGE_SIZE, pageQuery, toPage } from '../http/lists/list-query.js';
import { NOT_AN_OBJECT } from '../http/messages.js';
import {
  BAD_ORDER_STATUS,
  CURSOR_MALFORMED,
  CURSOR_WITH_PAGE,
  ORDER_COMPLETED,
  ORDER_CREATED,
} from './order.messages.js';

/** Absent or empty lists every order. */
const status = z
  .preprocess(
    (input) => (input === '' ? undefined : input),
    z.enum(['0', '1', '2'], BAD_ORDER_STATUS).transform(Number).optional(),
  )
  .meta({
    type: 'integer',
    enum: [0, 1, 2],
    description: 'only orders with this status; absent or empty lists every order',
  });

/** Its signature is checked by the handler, which knows the secret. */
const cursor = z
  .preprocess(
    (input) => (isBlank(input) ? undefined : input),
    z
      .string(CURSOR_MALFORMED)
      .regex(/^[A-Za-z0-9_-]{1,100}$/, CURSOR_MALFORMED)
      .optional(),
  )
  .meta({
    description:
      'the X-Next-Cursor of the page before: the next pageSize rows after it, in the list of the status it was made with',
  });

const orderListParams = z.object({ status, ...pageQuery, cursor });

/**
 * A whole list, a numbered page (`page`), or a page of a walk by cursor:
 * `pageSize` alone starts one, `cursor` goes on with it.
 */
export const orderListQuery = orderListParams.transform((query, ctx) => {
  const { status, page, pageSize, cursor } = query;
  if (cursor !== undefined && page !== undefined) {
    ctx.addIssue({ code: 'custom', message: CURSOR_WITH_PAGE });
    return z.NEVER;
  }
  if (cursor === undefined && (page !== undefined || pageSize === undefined)) {
    return { status, page: toPage(query) };
  }
  return { status, walk: { cursor, limit: pageSize ?? DEFAULT_PAGE_SIZE } };
});

export type OrderListQuery = z.output<typeof orderListQuery>;

/** A `status` in the body is dropped: an order starts at 0. */
export const newOrder = z.object(
  {
    service_id: idField('service_id'),
    user_name: requiredText('user_name', 50),
    user_phone: requiredText('user_phone', 20),
  },
  { error: NOT_AN_OBJECT },
);

export type NewOrder = z.output<typeof newOrder>;

/** server_name is the spec's name for the service name; service_name and price serve today's clients. */
export const orderRow = z.strictObject({
  id: rowId,
  service_id: rowId.meta({ description: "the service's id" }),
  user_name: z.string(),
  user_phone: z.string(),
  create_time: timestamp,
  status: z
    .literal([0, 1, 2])
    .meta({ description: '0 = awaiting payment; 1 and 2 as the order code uses them' }),
  server_name: z.string().nullable().meta({ description: 'the service name' }),
  service_name: z.string().nullable().meta({ description: 'the same as server_name' }),
  price: z
    .string()
    .regex(/^\d+\.\d{2}$/)
    .nullable()
    .meta({ description: "the service's current price, DECIMAL(10,2) as MySQL gives it" }),
  merchant_name: z.string().nullable(),
});

export type OrderRow = z.output<typeof orderRow>;

export const orderList = listReply(orderRow);
export const orderCreated = createdReply(ORDER_CREATED);
export const orderCompleted = changedReply(ORDER_COMPLETED);
