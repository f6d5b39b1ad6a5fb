import { describe, expect, it } from 'vitest';
import { fromStore, SessionStoreError } from '../src/index.js';

describe('fromStore', () => {
  it("passes a result through and turns a failure into a SessionStoreError, or the host's own error", async () => {
    const down = new Error('connect ECONNREFUSED');
    await expect(fromStore(Promise.resolve(7))).resolves.toBe(7);
    const failure = await fromStore(Promise.reject(down)).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SessionStoreError);
    expect((failure as Error).cause).toBe(down);
    class Outage extends Error {}
    const own = await fromStore(
      Promise.reject(down),
      (err) => new Outage('redis', { cause: err }),
    ).catch((err: unknown) => err);
    expect(own).toEqual(new Outage('redis'));
    expect((own as Error).cause).toBe(down);
  });
});
