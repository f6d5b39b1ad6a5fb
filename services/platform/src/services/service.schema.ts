import { z } from 'zod';
import {
  Invalid,
  idField,
  NOT_AN_OBJECT,
  optionalText,
  priceField,
  requiredText,
  rule,
  stockField,
} from '../http/fields.js';
import { pageQuery, toPage } from '../http/list.js';

/** Absent, empty and `all` mean every category; the clients' timestamp `t` is ignored. */
const category = rule((input) => {
  if (input === undefined || input === '' || input === 'all') return undefined;
  return typeof input === 'string' ? input : new Invalid('category must be a single text value');
}).optional();

export const serviceListQuery = z
  .object({ category, ...pageQuery })
  .transform((query) => ({ category: query.category, page: toPage(query) }));

/** A `status` in the body is dropped: a service starts off the shelf. */
export const newService = z.object(
  {
    merchant_id: idField('merchant_id'),
    name: requiredText('name', 100),
    price: priceField,
    category: requiredText('category', 50),
    image_url: optionalText('image_url', 200),
    stock: stockField,
  },
  { error: NOT_AN_OBJECT },
);

export type NewService = z.output<typeof newService>;
