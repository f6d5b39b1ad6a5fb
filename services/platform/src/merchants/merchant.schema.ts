import { z } from 'zod';
import { NOT_AN_OBJECT, requiredText } from '../http/fields.js';
import { pageQuery, toPage } from '../http/list.js';

export const merchantListQuery = z.object(pageQuery).transform(toPage);

/** A `status` in the body is dropped: a merchant starts under review. */
export const newMerchant = z.object(
  {
    name: requiredText('name', 100),
    address: requiredText('address', 200),
    phone: requiredText('phone', 20),
  },
  { error: NOT_AN_OBJECT },
);

export type NewMerchant = z.output<typeof newMerchant>;
