import { z } from 'zod';
import {
  changedReply,
  createdReply,
  listReply,
  rowId,
  timestamp,
} from '../api-docs/reply-schemas.js';
import { NOT_AN_OBJECT } from '../http/messages.js';
import {
  INT_MAX,
  Invalid,
  idField,
  optionalText,
  priceField,
  requiredText,
  rule,
  stockField,
} from '../input/fields.js';
import { pageQuery, toPage } from '../lists/list-query.js';
import { SERVICE_ADDED, SERVICE_PUBLISHED, SERVICE_UNPUBLISHED } from './service.messages.js';

/** Absent, empty and `all` mean every category. */
const category = rule((input) => {
  if (input === undefined || input === '' || input === 'all') return undefined;
  return typeof input === 'string' ? input : new Invalid('category must be a single text value');
})
  .optional()
  .meta({
    type: 'string',
    description: 'only this category, matched exactly; absent, empty or all lists every category',
    examples: ['保洁'],
  });

/** The clients add a timestamp against caches; any value is accepted and ignored. */
const t = z.unknown().optional().meta({
  type: 'string',
  description: 'a timestamp the clients send against caches; ignored',
});

export const serviceListParams = z.object({ category, t, ...pageQuery });

export const serviceListQuery = serviceListParams.transform((query) => ({
  category: query.category,
  page: toPage(query),
}));

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

export const serviceRow = z.strictObject({
  id: rowId,
  merchant_id: rowId.meta({ description: "the merchant's id" }),
  name: z.string(),
  price: z
    .string()
    .regex(/^\d+\.\d{2}$/)
    .meta({ description: 'DECIMAL(10,2) as MySQL gives it' }),
  category: z.string(),
  image_url: z.string().nullable(),
  stock: z.int().min(0).max(INT_MAX),
  status: z.literal([0, 1]).meta({ description: '0 = off shelf, 1 = on shelf' }),
  create_time: timestamp,
  merchant_name: z
    .string()
    .nullable()
    .meta({ description: "the merchant's name; null without one" }),
});

/** Price is the DECIMAL's text, as MySQL gives it ("150.00"). */
export type ServiceRow = z.output<typeof serviceRow>;

export const serviceList = listReply(serviceRow);
export const serviceAdded = createdReply(SERVICE_ADDED);
export const servicePublished = changedReply(SERVICE_PUBLISHED);
export const serviceUnpublished = changedReply(SERVICE_UNPUBLISHED);
