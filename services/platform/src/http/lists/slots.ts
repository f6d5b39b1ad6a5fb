import { createWaitQueue } from '@svc/common';

/** A waiting list is refused once every holder has waited this long on its client: they are stuck. */
const STALLED_MS = 1000;
/** And in any case after this long, so no request waits without bound. */
const MAX_WAIT_MS = 30_000;
/** A list refused for want of a slot may try again this soon. */
const RETRY_AFTER_SECONDS = 1;

/** A slot held: its holder says when it waits for its client, and releases it once. */
export interface Slot {
  /** The client takes no more for now (its socket buffer is full). */
  blocked(): void;
  /** The client took what was sent: the holder moves again. */
  progressed(): void;
  release(): void;
}

/** At most `limit` holders at a time; the others wait their turn while the line moves. */
export interface Slots {
  /** Resolves with a slot; rejects with a BusyError when the line stops. */
  take(): Promise<Slot>;
}

/**
 * Lists that are merely many (a burst of admins, a benchmark) wait in line and
 * are served in order, however long each takes to read and send. Lists stuck
 * behind holders whose clients take nothing (stalled clients) are told to
 * retry once every holder has waited a second on its client with no slot
 * coming free; each has waited at least that second itself.
 */
export function createSlots(limit: number, stalledMs = STALLED_MS, maxWaitMs = MAX_WAIT_MS): Slots {
  let lastFreed = Date.now();
  const holders = new Set<{ blockedSince: number | undefined }>();

  /** How long the line has stood still: 0 while any holder is working. */
  const stalledFor = (now: number) => {
    let since = lastFreed;
    for (const { blockedSince } of holders) {
      if (blockedSince === undefined) return 0;
      since = Math.max(since, blockedSince);
    }
    return now - since;
  };

  const queue = createWaitQueue({
    slots: limit,
    maxWaitMs,
    patienceMs: (waited) => Math.max(stalledMs - waited, stalledMs - stalledFor(Date.now())),
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });

  return {
    async take() {
      const release = await queue.take();
      const holder = { blockedSince: undefined as number | undefined };
      holders.add(holder);
      return {
        blocked() {
          holder.blockedSince ??= Date.now();
        },
        progressed() {
          holder.blockedSince = undefined;
        },
        release() {
          if (!holders.delete(holder)) return;
          lastFreed = Date.now();
          release();
        },
      };
    },
  };
}
