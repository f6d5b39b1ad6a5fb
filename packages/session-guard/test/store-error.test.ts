import { describe, expect, it } from 'vitest';
import { fromStore, SessionOutcomeUnknownError, SessionStoreError } from '../src/index.js';
import { mayHaveWritten } from '../src/write-outcome.js';

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

describe('mayHaveWritten', () => {
  it('is false for an answer of Redis and a command never sent, true for one sent unanswered', () => {
    const reply = Object.assign(new Error('NOSCRIPT No matching script'), { name: 'ReplyError' });
    expect(mayHaveWritten(reply)).toBe(false);
    expect(
      mayHaveWritten(new Error("Stream isn't writeable and enableOfflineQueue options is false")),
    ).toBe(false);
    expect(
      mayHaveWritten(new Error("Cluster isn't ready and enableOfflineQueue options is false")),
    ).toBe(false);
    expect(mayHaveWritten(new Error('Command timed out'))).toBe(true);
    expect(mayHaveWritten(new Error('Connection is closed.'))).toBe(true);
  });

  it('keeps an outcome unknown as it is through fromStore', async () => {
    const unknown = new SessionOutcomeUnknownError('ending stopped part way');
    await expect(fromStore(Promise.reject(unknown))).rejects.toBe(unknown);
    expect(unknown).toBeInstanceOf(SessionStoreError);
  });
});
