import { AppError } from '@svc/common';

export const LISTS_BUSY = 'too many whole lists are being read at once, try again shortly';

/** A waiting list is refused when no slot has come free for this long: the holders are stuck. */
const STALLED_MS = 1000;
/** And in any case after this long, so no request waits without bound. */
const MAX_WAIT_MS = 30_000;

/** At most `limit` holders at a time; the others wait their turn while the line moves. */
export interface Slots {
  /** Resolves with the slot's release; rejects with a 503 AppError when the line stops. */
  take(): Promise<() => void>;
}

/**
 * Lists that are merely many (a burst of admins, a benchmark) wait in line and
 * are served in order, since slots keep coming free. Lists stuck behind
 * holders that make no progress (stalled clients) are told to retry as soon
 * as a second passes without a slot freeing up.
 */
export function createSlots(limit: number, stalledMs = STALLED_MS, maxWaitMs = MAX_WAIT_MS): Slots {
  let free = limit;
  let lastFreed = Date.now();
  const waiting: (() => void)[] = [];

  const grant = () => {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      lastFreed = Date.now();
      const next = waiting.shift();
      if (next) next();
      else free++;
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
          if (now - lastFreed < stalledMs && now - queuedAt < maxWaitMs) {
            timer = setTimeout(check, stalledMs - (now - lastFreed));
            return;
          }
          waiting.splice(waiting.indexOf(wake), 1);
          reject(new AppError(503, LISTS_BUSY));
        };
        timer = setTimeout(check, stalledMs);
        waiting.push(wake);
      });
    },
  };
}
