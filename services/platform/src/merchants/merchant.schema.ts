import { z } from 'zod';
import {
  changedReply,
  createdReply,
  listReply,
  rowId,
  timestamp,
} from '../http/docs/reply-schemas.js';
import { requiredText } from '../http/input.js';
import { pageQuery, toPage } from '../http/lists/list-query.js';
import { NOT_AN_OBJECT } from '../http/messages.js';
import { MERCHANT_ADDED, MERCHANT_APPROVED } from './merchant.messages.js';

const merchantListParams = z.object(pageQuery);

export const merchantListQuery = merchantListParams.transform(toPage);

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

export const merchantRow = z.strictObject({
  id: rowId,
  name: z.string(),
  address: z.string(),
  phone: z.string(),
  status: z.literal([0, 1]).meta({ description: '0 = under review, 1 = approved' }),
  create_time: timestamp,
});

export type MerchantRow = z.output<typeof merchantRow>;

export const merchantList = listReply(merchantRow);
export const merchantAdded = createdReply(MERCHANT_ADDED);
export const merchantApproved = changedReply(MERCHANT_APPROVED);
