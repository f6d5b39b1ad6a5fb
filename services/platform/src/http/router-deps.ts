import type { RequestHandler } from 'express';
import type { IdempotentCreate } from '../idempotency/idempotent-create.js';
import type { Slots } from '../lists/slots.js';

/** What each resource's router and handlers are given besides its repository. */
export interface RouterDeps {
  /** Bounds the resource's whole (unpaged) lists read at once (LIST_CONCURRENCY). */
  wholeLists: Slots;
  /** Reads a JSON body; a refused one is answered in the route's envelope. */
  json: RequestHandler;
  /** The administrator token check (PLATFORM_ADMIN_TOKEN); lets every request through when unset. */
  adminOnly: RequestHandler;
  /** Runs a create, once per Idempotency-Key when the request sends one. */
  createOnce: IdempotentCreate;
}
