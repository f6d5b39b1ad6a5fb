import { BusyError } from './errors.js';

interface WaitQueueOptions {
  /** How many hold a slot at once. */
  slots: number;
  /** How many may wait in line; the next is refused at once. Unbounded by default. */
  maxWaiting?: number;
  /** The longest one waits before it is refused. Unbounded by default. */
  maxWaitMs?: number;
  /**
   * A reason of the owner's to refuse sooner: asked while one waits (it has
   * waited `waitedMs`), it gives how many ms more it may wait; 0 or less
   * refuses it now. Asked again when that time is up.
   */
  patienceMs?: (waitedMs: number) => number;
  /** What a refusal (a BusyError) tells the client to wait before trying again. */
  retryAfterSeconds?: number;
}

/** Gives the slot back: to the first in line, or to the queue. Once; later calls do nothing. */
type Release = () => void;

interface WaitQueue {
  /** A slot, at once or in turn; rejects with a BusyError when the line is full or the wait too long. */
  take(): Promise<Release>;
  /** The work in a slot, released whatever the work's outcome. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** At most `slots` holders; the rest wait in line, served in order, each for a bounded time. */
export function createWaitQueue(options: WaitQueueOptions): WaitQueue {
  const {
    maxWaiting = Infinity,
    maxWaitMs = Infinity,
    patienceMs,
    retryAfterSeconds = 1,
  } = options;
  let free = options.slots;
  const line: (() => void)[] = [];

  const release = (): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next in line, or is given back.
      const next = line.shift();
      if (next) next();
      else free++;
    };
  };

  const take = (): Promise<Release> => {
    if (free > 0) {
      free--;
      return Promise.resolve(release());
    }
    if (line.length >= maxWaiting) return Promise.reject(new BusyError(retryAfterSeconds));
    const queuedAt = Date.now();
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const wake = () => {
        clearTimeout(timer);
        resolve(release());
      };
      const check = () => {
        const waited = Date.now() - queuedAt;
        const left = Math.min(maxWaitMs - waited, patienceMs?.(waited) ?? Infinity);
        if (left === Infinity) return;
        if (left > 0) {
          timer = setTimeout(check, left);
          return;
        }
        line.splice(line.indexOf(wake), 1);
        reject(new BusyError(retryAfterSeconds));
      };
      line.push(wake);
      check();
    });
  };

  return {
    take,
    async run(work) {
      const done = await take();
      try {
        return await work();
      } finally {
        done();
      }
    },
  };
}
