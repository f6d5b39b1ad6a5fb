import { describe, expect, it } from 'vitest';
import { createSlots } from '../src/db/slots.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('whole-list slots', () => {
  it('serves a long line in order while slots keep coming free', async () => {
    const slots = createSlots(2, 200, 5000);
    const served: number[] = [];
    // Each holder keeps its slot 50 ms: 12 lists take ~300 ms, longer than the stall limit.
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const release = await slots.take();
        served.push(i);
        await sleep(50);
        release();
      }),
    );
    expect(served).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it('refuses with a 503 once no slot has come free for the stall limit', async () => {
    const slots = createSlots(1, 200, 5000);
    const held = await slots.take();
    const started = Date.now();
    await expect(slots.take()).rejects.toMatchObject({ status: 503 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(Date.now() - started).toBeLessThan(1000);
    held();
    const next = await slots.take();
    next();
  });

  it('refuses after the longest wait even while the line moves', async () => {
    const slots = createSlots(1, 200, 250);
    const first = await slots.take();
    const started = Date.now();
    const waiters = Array.from({ length: 4 }, () =>
      slots.take().then(
        async (release) => {
          await sleep(100);
          release();
          return 'served';
        },
        () => `refused after ${Date.now() - started} ms`,
      ),
    );
    await sleep(100);
    first();
    const outcomes = await Promise.all(waiters);
    // Slots free every 100 ms, so the line is never stalled; the last waiter
    // would be served after 400 ms, past the 250 ms cap, and is refused instead.
    expect(outcomes.slice(0, 2)).toEqual(['served', 'served']);
    expect(outcomes[3]).toMatch(/^refused after (3|4)\d\d ms$/);
  });
});
