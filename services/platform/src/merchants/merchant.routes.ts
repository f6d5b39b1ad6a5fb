import type { RequestHandler, Router } from 'express';
import { endpointRouter } from '../http/endpoints.js';
import { merchantDocs } from './merchant.docs.js';
import { merchantHandlers } from './merchant.handlers.js';
import type { MerchantRepository } from './merchant.repository.js';

/**
 * Each route is its document (method, path, schemas, failure envelope) and a
 * handler; the administrator routes among them run `adminGuard` first.
 */
export function merchantRoutes(merchants: MerchantRepository, adminGuard?: RequestHandler): Router {
  const handle = merchantHandlers(merchants);
  return endpointRouter(
    [
      { ...merchantDocs.list, handler: handle.list },
      { ...merchantDocs.add, handler: handle.add },
      { ...merchantDocs.approve, handler: handle.approve },
    ],
    { adminGuard },
  );
}
