import type { RequestHandler, Router } from 'express';
import { endpointRouter } from '../http/endpoints.js';
import { serviceDocs } from './service.docs.js';
import { serviceHandlers } from './service.handlers.js';
import type { ServiceRepository } from './service.repository.js';

/**
 * Each route is its document (method, path, schemas, failure envelope) and a
 * handler; the administrator routes among them run `adminGuard` first.
 */
export function serviceRoutes(services: ServiceRepository, adminGuard?: RequestHandler): Router {
  const handle = serviceHandlers(services);
  return endpointRouter(
    [
      { ...serviceDocs.list, handler: handle.list },
      { ...serviceDocs.add, handler: handle.add },
      { ...serviceDocs.publish, handler: handle.publish },
      { ...serviceDocs.unpublish, handler: handle.unpublish },
    ],
    { adminGuard },
  );
}
