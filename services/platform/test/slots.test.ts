import { BusyError } from '@svc/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSlots } from '../src/http/lists/slots.js';

// The line's rules are about time, so these tests run on vitest's clock: a
// loaded machine that fires timers late cannot change what they see.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const elapsed = (from: number) => Date.now() - from;

/** What became of a take(): served, or refused as busy, and when. */
function settle(take: Promise<unknown>, started: number) {
  const outcome = { state: 'waiting' as 'waiting' | 'served' | 'refused', at: -1 };
  take.then(
    () => Object.assign(outcome, { state: 'served', at: elapsed(started) }),
    (error) => {
      expect(error).toEqual(new BusyError(1));
      Object.assign(outcome, { state: 'refused', at: elapsed(started) });
    },
  );
  return outcome;
}

describe('whole-list slots', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('serves a long line in order while slots keep coming free', async () => {
    const slots = createSlots(2, 200, 5000);
    const served: number[] = [];
    // Each holder keeps its slot 50 ms: 12 lists take 300 ms, longer than the stall limit.
    const line = Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const slot = await slots.take();
        served.push(i);
        await sleep(50);
        slot.release();
      }),
    );
    await vi.advanceTimersByTimeAsync(300);
    await line;
    expect(served).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it('refuses (busy, retry after a second) once its holder has waited the stall limit on its client', async () => {
    const slots = createSlots(1, 200, 5000);
    const held = await slots.take();
    held.blocked();
    const waiter = settle(slots.take(), Date.now());
    await vi.advanceTimersByTimeAsync(199);
    expect(waiter.state).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    expect(waiter).toEqual({ state: 'refused', at: 200 });
    held.release();
    const next = await slots.take();
    next.release();
  });

  it('refuses after the longest wait even while the line moves', async () => {
    const slots = createSlots(1, 200, 250);
    const first = await slots.take();
    const started = Date.now();
    const takes = Array.from({ length: 4 }, () => slots.take());
    const waiters = takes.map((take) => settle(take, started));
    // Every holder keeps its slot 100 ms, so the line is never stalled.
    for (const take of takes) {
      take.then(
        async (slot) => {
          await sleep(100);
          slot.release();
        },
        () => {},
      );
    }
    await vi.advanceTimersByTimeAsync(100);
    first.release();
    await vi.advanceTimersByTimeAsync(400);
    // Served at 100 and 200 ms; the next two would be served at 300 and 400 ms,
    // past the 250 ms cap, and are refused at the cap instead.
    expect(waiters).toEqual([
      { state: 'served', at: 100 },
      { state: 'served', at: 200 },
      { state: 'refused', at: 250 },
      { state: 'refused', at: 250 },
    ]);
  });

  it('keeps a line waiting while its holder works, however long it holds', async () => {
    const slots = createSlots(1, 200, 5000);
    const holder = await slots.take();
    const waiter = settle(slots.take(), Date.now());
    // The holder reads and sends for 600 ms, three stall limits, now and then waiting on its client.
    for (let i = 0; i < 6; i++) {
      holder.blocked();
      await vi.advanceTimersByTimeAsync(50);
      holder.progressed();
      await vi.advanceTimersByTimeAsync(50);
    }
    expect(waiter.state).toBe('waiting');
    holder.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(waiter).toEqual({ state: 'served', at: 600 });
  });

  it('refuses once every holder has waited the stall limit on its client', async () => {
    const slots = createSlots(2, 200, 5000);
    const [first, second] = await Promise.all([slots.take(), slots.take()]);
    const started = Date.now();
    const waiter = settle(slots.take(), started);
    first.blocked();
    await vi.advanceTimersByTimeAsync(100);
    second.blocked();
    // Stalled from the later block on: 200 ms after it, not after the first.
    await vi.advanceTimersByTimeAsync(199);
    expect(waiter.state).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    expect(waiter).toEqual({ state: 'refused', at: 300 });
    first.release();
    second.release();
  });
});
