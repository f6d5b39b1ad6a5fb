import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BusyError } from '../src/errors.js';
import { createWaitQueue } from '../src/wait-queue.js';

// The queue's rules are about time, so these tests run on vitest's clock: a
// loaded machine that fires timers late cannot change what they see.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What became of a take(): served, or refused as busy, and when (ms after `started`). */
function settle(take: Promise<unknown>, started = Date.now()) {
  const outcome = { state: 'waiting' as 'waiting' | 'served' | 'refused', at: -1 };
  take.then(
    () => Object.assign(outcome, { state: 'served', at: Date.now() - started }),
    (error) => {
      expect(error).toEqual(new BusyError(1));
      Object.assign(outcome, { state: 'refused', at: Date.now() - started });
    },
  );
  return outcome;
}

describe('createWaitQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs at most `slots` at once and serves the rest in order, each slot passing straight on', async () => {
    const queue = createWaitQueue({ slots: 2 });
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const all = Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        queue.run(async () => {
          order.push(i);
          most = Math.max(most, ++running);
          await sleep(10);
          running--;
          return i;
        }),
      ),
    );
    await vi.advanceTimersByTimeAsync(40);
    expect(await all).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(most).toBe(2);
  });

  it('gives the slot back when the work fails, and a second release changes nothing', async () => {
    const queue = createWaitQueue({ slots: 1 });
    await expect(queue.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const release = await queue.take();
    const waiter = settle(queue.take());
    release();
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(waiter).toEqual({ state: 'served', at: 0 });
    const third = settle(queue.take());
    await vi.advanceTimersByTimeAsync(1000);
    expect(third.state).toBe('waiting');
  });

  it('refuses at once (busy) when the line is full', async () => {
    const queue = createWaitQueue({ slots: 1, maxWaiting: 2 });
    const release = await queue.take();
    const waiting = [settle(queue.take()), settle(queue.take())];
    const refused = settle(queue.take());
    await vi.advanceTimersByTimeAsync(0);
    expect(refused).toEqual({ state: 'refused', at: 0 });
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(waiting.map((waiter) => waiter.state)).toEqual(['served', 'waiting']);
  });

  it('refuses a waiter at the longest wait even while the line moves, and serves the line behind it', async () => {
    const queue = createWaitQueue({ slots: 1, maxWaitMs: 250 });
    const first = await queue.take();
    const started = Date.now();
    const takes = Array.from({ length: 4 }, () => queue.take());
    const waiters = takes.map((take) => settle(take, started));
    for (const take of takes) {
      take.then(
        async (release) => {
          await sleep(100);
          release();
        },
        () => {},
      );
    }
    await vi.advanceTimersByTimeAsync(100);
    first();
    await vi.advanceTimersByTimeAsync(400);
    expect(waiters).toEqual([
      { state: 'served', at: 100 },
      { state: 'served', at: 200 },
      { state: 'refused', at: 250 },
      { state: 'refused', at: 250 },
    ]);
    const next = settle(queue.take(), started);
    await vi.advanceTimersByTimeAsync(0);
    expect(next).toEqual({ state: 'served', at: 500 });
  });

  it("refuses sooner for the owner's reason, asking again when the time it gave is up", async () => {
    let stuck = false;
    const asked: number[] = [];
    const queue = createWaitQueue({
      slots: 1,
      maxWaitMs: 5000,
      patienceMs: (waited) => {
        asked.push(waited);
        return stuck ? 0 : 300;
      },
    });
    const release = await queue.take();
    const waiter = settle(queue.take());
    await vi.advanceTimersByTimeAsync(500);
    stuck = true;
    await vi.advanceTimersByTimeAsync(99);
    expect(waiter.state).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    expect(waiter).toEqual({ state: 'refused', at: 600 });
    expect(asked).toEqual([0, 300, 600]);
    release();
  });

  it('keeps an unbounded line waiting without a timer of its own', async () => {
    const queue = createWaitQueue({ slots: 1 });
    const release = await queue.take();
    const waiter = settle(queue.take());
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(waiter.state).toBe('waiting');
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(waiter).toEqual({ state: 'served', at: 60_000 });
  });
});
