import type { Slots } from './lists/slots.js';

/** What each resource's handlers are given besides its repository. */
export interface RouterDeps {
  /** Bounds the resource's whole (unpaged) lists read at once (LIST_CONCURRENCY). */
  wholeLists: Slots;
}
