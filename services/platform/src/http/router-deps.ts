import type { KeptLists } from './lists/kept-lists.js';
import type { Slots } from './lists/slots.js';

/** What each resource's handlers are given besides its repository. */
export interface RouterDeps {
  /** Bounds the resource's whole (unpaged) lists read at once (LIST_CONCURRENCY). */
  wholeLists: Slots;
  /** The list bodies sent, kept while unchanged (LIST_CACHE_MB). */
  kept: KeptLists;
}
