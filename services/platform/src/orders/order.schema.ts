import { z } from 'zod';
import { Invalid, idField, NOT_AN_OBJECT, requiredText, rule } from '../http/fields.js';
import { pageQuery, toPage } from '../http/list.js';

const STATUSES = ['0', '1', '2'];

/** Absent or empty lists every order. */
const status = rule((input) => {
  if (input === undefined || input === '') return undefined;
  return typeof input === 'string' && STATUSES.includes(input)
    ? Number(input)
    : new Invalid('status must be 0, 1 or 2');
}).optional();

export const orderListQuery = z
  .object({ status, ...pageQuery })
  .transform((query) => ({ status: query.status, page: toPage(query) }));

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
