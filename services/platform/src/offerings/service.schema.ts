import { z } from 'zod';
import {
  changedReply,
  createdReply,
  listReply,
  rowId,
  timestamp,
} from '../http/docs/reply-schemas.js';
import {
  digitsAsNumber,
  INT_MAX,
  idField,
  isBlank,
  optionalText,
  requiredText,
} from '../http/input.js';
import { pageQuery, toPage } from '../http/lists/list-query.js';
import { NOT_AN_OBJECT } from '../http/messages.js';
import { SERVICE_ADDED, SERVICE_PUBLISHED, SERVICE_UNPUBLISHED } from './service.messages.js';

/** Absent, empty and `all` mean every category. */
const category = z
  .preprocess(
    (input) => (input === '' || input === 'all' ? undefined : input),
    z.string('category must be a single text value').optional(),
  )
  .meta({
    description: 'only this category, matched exactly; absent, empty or all lists every category',
    examples: ['保洁'],
  });

/** The clients add a timestamp against caches; any value is accepted and ignored. */
const t = z.unknown().optional().meta({
  type: 'string',
  description: 'a timestamp the clients send against caches; ignored',
});

const serviceListParams = z.object({ category, t, ...pageQuery });

export const serviceListQuery = serviceListParams.transform((query) => ({
  category: query.category,
  page: toPage(query),
}));

export type ServiceListQuery = z.output<typeof serviceListQuery>;

const PRICE_MAX = 99_999_999.99;
const PRICE = /^\d+(\.\d{1,2})?$/;
export const BAD_PRICE = 'price must be a non-negative number with at most 2 decimals';

/**
 * A DECIMAL(10,2) amount, kept as text so no float ever rounds it. Its checks
 * are refinements, which the document does not show: `.meta()` says what it
 * accepts, bounds before pattern as clients have read them.
 */
const price = z.preprocess(
  (input) => (typeof input === 'number' ? String(input) : input),
  z
    .string({ error: (issue) => (isBlank(issue.input) ? 'price is required' : BAD_PRICE) })
    .refine((text) => text !== '', { error: 'price is required', abort: true })
    .trim()
    .refine((text) => PRICE.test(text), { error: BAD_PRICE, abort: true })
    .refine((text) => Number(text) <= PRICE_MAX, `price must be at most ${PRICE_MAX}`)
    .meta({
      type: ['number', 'string'],
      minimum: 0,
      maximum: PRICE_MAX,
      pattern: PRICE.source,
      description: `0 to ${PRICE_MAX} with at most 2 decimals, as a JSON number or a numeric string`,
    }),
);

const STOCK_TEXT = 'stock must be a non-negative integer';

/**
 * Omitted, null or empty is the column default 0. Not `z.int()`: it refuses
 * integers past 2^53 with its own text, where a stock that large is "at most".
 */
const stock = z
  .preprocess(
    (input) => (isBlank(input) ? 0 : digitsAsNumber(input)),
    z
      .number(STOCK_TEXT)
      .refine(Number.isInteger, { error: STOCK_TEXT, abort: true })
      .min(0, STOCK_TEXT)
      .max(INT_MAX, `stock must be at most ${INT_MAX}`)
      .meta({
        type: ['integer', 'string', 'null'],
        description: 'omitted, null or empty is 0; a JSON number or a digit string',
      }),
  )
  .default(0);

/** A `status` in the body is dropped: a service starts off the shelf. */
export const newService = z.object(
  {
    merchant_id: idField('merchant_id'),
    name: requiredText('name', 100),
    price,
    category: requiredText('category', 50),
    image_url: optionalText('image_url', 200),
    stock,
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
