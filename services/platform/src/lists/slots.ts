import { BusyError } from '@svc/common';

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
 * coming free.
 */
export function createSlots(limit: number, stalledMs = STALLED_MS, maxWaitMs = MAX_WAIT_MS): Slots {
  let free = limit;
  let lastFreed = Date.now();
  const holders = new Set<{ blockedSince: number | undefined }>();
  const waiting: (() => void)[] = [];

  /** How long the line has stood still: 0 while any holder is working. */
  const stalledFor = (now: number) => {
    let since = lastFreed;
    for (const { blockedSince } of holders) {
      if (blockedSince === undefined) return 0;
      since = Math.max(since, blockedSince);
    }
    return now - since;
  };

  const grant = (): Slot => {
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
        const next = waiting.shift();
        if (next) next();
        else free++;
      },
    };
  };

  return {
    take() {
      if (free > 0) {
        free--;
        return Promise.resolve(grant());
      }
      const queuedAt = Date.now();
      return new Promise((resolve, reject) => {
        let timer: NodeJS.Timeout;
        const wake = () => {
          clearTimeout(timer);
          resolve(grant());
        };
        const check = () => {
          const now = Date.now();
          const stalled = stalledFor(now);
          const waited = now - queuedAt;
          if (stalled < stalledMs && waited < maxWaitMs) {
            timer = setTimeout(check, Math.min(stalledMs - stalled, maxWaitMs - waited));
            return;
          }
          waiting.splice(waiting.indexOf(wake), 1);
          reject(new BusyError(RETRY_AFTER_SECONDS));
        };
        timer = setTimeout(check, stalledMs);
        waiting.push(wake);
      });
    },
  };
}
