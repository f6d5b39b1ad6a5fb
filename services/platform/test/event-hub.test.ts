import type { Logger } from '@svc/common';
import { describe, expect, it } from 'vitest';
import type { EventRepository } from '../src/feed/event.repository.js';
import { eventHub } from '../src/feed/event-hub.js';
import type { FeedEvent } from '../src/store/events/event-rows.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The hub's own logic on a repository in memory whose head reads answer only
 * when the test says, so that two reads can be made to interleave as they may
 * on a real database (the feed and the stream across instances are tested on
 * MariaDB in events.test.ts).
 */
function heldRepository(published: number[]) {
  const headReads: (() => void)[] = [];
  const event = (id: number): FeedEvent => ({ id, type: 'order.created', json: Buffer.from('{}') });
  const repository = {
    bounds() {
      const last = published.at(-1) ?? 0;
      return new Promise<{ oldest: number | undefined; last: number }>((resolve) => {
        headReads.push(() => resolve({ oldest: published[0], last }));
      });
    },
    async after(after: number, limit: number) {
      return published
        .filter((id) => id > after)
        .slice(0, limit)
        .map(event);
    },
  };
  return { repository: repository as unknown as EventRepository, headReads };
}

const quietLogger = { warn: () => undefined } as unknown as Logger;

describe('eventHub', () => {
  it('reads the head once when a stream starting at the head and the first poll need it together', async () => {
    const published = [1, 2, 3];
    const { repository, headReads } = heldRepository(published);
    const hub = eventHub(repository, quietLogger);
    const leave = hub.add({
      published: () => undefined,
      heartbeat: () => undefined,
      end: () => undefined,
    });
    // A stream without Last-Event-ID asks for the head while the first poll is about to.
    const streamHead = hub.head();
    await sleep(10);
    published.push(4, 5);
    // The later read answers first, and the poll reads on from it; then the earlier one answers.
    for (const answer of headReads.reverse()) {
      answer();
      await sleep(10);
    }
    expect(await streamHead).toBe(3);
    await sleep(250);
    try {
      expect(hub.since(3)?.map((event) => event.id)).toEqual([4, 5]);
      expect(headReads).toHaveLength(1);
    } finally {
      leave();
    }
  });
});
