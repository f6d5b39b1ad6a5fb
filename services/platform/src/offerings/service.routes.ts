import type { Slots } from '../db/slots.js';
import type { Endpoint } from '../http/endpoints.js';
import { serviceDocs } from './service.docs.js';
import { serviceHandlers } from './service.handlers.js';
import type { ServiceRepository } from './service.repository.js';

/** Each route is its document (method, path, schemas, failure envelope) and its handler. */
export function serviceRoutes(services: ServiceRepository, wholeLists: Slots): Endpoint[] {
  const handle = serviceHandlers(services, wholeLists);
  return [
    { ...serviceDocs.list, handler: handle.list },
    { ...serviceDocs.add, handler: handle.add },
    { ...serviceDocs.publish, handler: handle.publish },
    { ...serviceDocs.unpublish, handler: handle.unpublish },
  ];
}
