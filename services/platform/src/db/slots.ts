import { AppError } from '@svc/common';

export const LISTS_BUSY = 'too many whole lists are being read at once, try again shortly';

/** How long a whole list waits for a slot before it is answered 503. */
const WAIT_MS = 1000;

/** At most `limit` holders at a time; the others wait their turn, briefly. */
export interface Slots {
  /** Resolves with the slot's release; rejects with a 503 AppError after the wait. */
  take(): Promise<() => void>;
}

export function createSlots(limit: number, waitMs = WAIT_MS): Slots {
  let free = limit;
  const waiting: (() => void)[] = [];

  const grant = () => {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
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
      return new Promise((resolve, reject) => {
        const wake = () => {
          clearTimeout(timer);
          resolve(grant());
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(wake), 1);
          reject(new AppError(503, LISTS_BUSY));
        }, waitMs);
        waiting.push(wake);
      });
    },
  };
}
