import { AppError } from '@svc/common';
import type { Request, Response } from 'express';
import { parseInput } from '../http/input.js';
import { LISTED } from '../http/messages.js';
import { BAD_LAST_EVENT_ID, eventsAhead, eventsGone } from './event.messages.js';
import type { EventRepository } from './event.repository.js';
import { eventId, type FeedQuery, type StreamQuery } from './event.schema.js';
import type { EventHub } from './event-hub.js';
import { refuseStream, streamEvents } from './event-stream.js';

interface EventDeps {
  events: EventRepository;
  /** Resolves once every event committed before the call is published. */
  publisher: { now(): Promise<void> };
  hub: EventHub;
}

const COMMA = Buffer.from(',');
const feedHead = Buffer.from(`{"code":200,"message":"${LISTED}","data":[`);
const FEED_TAIL = Buffer.from(']}');

/**
 * Why the events after `after` cannot be read on from, if they cannot: a 410
 * when the next ones were removed (retention: the client missed some), a 400
 * when it is newer than any event, which a client reading this database never
 * received (it would wait for ids already given elsewhere, and miss them).
 */
async function cursorRefusal({ events }: EventDeps, after: number): Promise<AppError | undefined> {
  const { oldest, last } = await events.bounds();
  if (after > last) return new AppError(400, eventsAhead(after, last));
  const first = oldest ?? last + 1;
  if (after < first - 1) return new AppError(410, eventsGone(after, first));
  return undefined;
}

export function eventHandlers(deps: EventDeps) {
  return {
    /**
     * Events after `after`, oldest first. Events that had committed before the
     * request are published first, so a client reads every change answered before it asked.
     */
    async feed(_req: Request, res: Response, { query }: { query: FeedQuery }) {
      await deps.publisher.now();
      const refusal =
        query.after === undefined ? undefined : await cursorRefusal(deps, query.after);
      if (refusal) throw refusal;
      const after = query.after ?? 0;
      const found = await deps.events.after(after, query.limit ?? 100, query.type);
      const last = found.at(-1);
      if (last) res.set('X-Next-Cursor', String(last.id));
      const parts = found.flatMap(({ json }, i) => (i === 0 ? [json] : [COMMA, json]));
      res.type('json').send(Buffer.concat([feedHead, ...parts, FEED_TAIL]));
    },

    /**
     * Server-Sent Events from `Last-Event-ID` (or `after`), else from now on.
     * An id newer than any event is told as an `event: error` message, which
     * an EventSource, unlike an HTTP 400, hands to its page.
     */
    async stream(req: Request, res: Response, { query }: { query: StreamQuery }) {
      const header = req.headers['last-event-id'];
      const resumed =
        header === undefined ? undefined : parseInput(eventId(BAD_LAST_EVENT_ID), header);
      const after = resumed ?? query.after;
      const refusal = after === undefined ? undefined : await cursorRefusal(deps, after);
      if (refusal?.status === 400) {
        req.log.warn({ after }, refusal.message);
        return refuseStream(res, refusal.message);
      }
      if (refusal) throw refusal;
      streamEvents(req, res, deps, { after: after ?? (await deps.hub.head()), types: query.type });
    },
  };
}
