import type { Slots } from '../db/slots.js';
import type { Endpoint } from '../http/endpoints.js';
import { merchantDocs } from './merchant.docs.js';
import { merchantHandlers } from './merchant.handlers.js';
import type { MerchantRepository } from './merchant.repository.js';

/** Each route is its document (method, path, schemas, failure envelope) and its handler. */
export function merchantRoutes(merchants: MerchantRepository, wholeLists: Slots): Endpoint[] {
  const handle = merchantHandlers(merchants, wholeLists);
  return [
    { ...merchantDocs.list, handler: handle.list },
    { ...merchantDocs.add, handler: handle.add },
    { ...merchantDocs.approve, handler: handle.approve },
  ];
}
