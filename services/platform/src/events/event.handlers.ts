import { AppError } from '@svc/common';
import type { Request, Response } from 'express';
import { LISTED } from '../http/messages.js';
import { parseInput } from '../input/parse.js';
import { BAD_LAST_EVENT_ID, eventsGone } from './event.messages.js';
import type { EventRepository } from './event.repository.js';
import { eventId, feedQuery, streamQuery } from './event.schema.js';
import type { EventHub } from './event-hub.js';
import { streamEvents } from './event-stream.js';
import type { EventPublisher } from './publisher.js';

interface EventDeps {
  events: EventRepository;
  publisher: EventPublisher;
  hub: EventHub;
}

const COMMA = Buffer.from(',');
const feedHead = Buffer.from(`{"code":200,"message":"${LISTED}","data":[`);
const FEED_TAIL = Buffer.from(']}');

/** The 410 of an `after` whose next events were removed (retention): the client missed some. */
async function checkKept({ events }: EventDeps, after: number): Promise<void> {
  const { oldest, last } = await events.bounds();
  const first = oldest ?? last + 1;
  if (after < first - 1) throw new AppError(410, eventsGone(after, first));
}

export function eventHandlers(deps: EventDeps) {
  return {
    /**
     * Events after `after`, oldest first. Events that had committed before the
     * request are published first, so a client reads every change answered before it asked.
     */
    async feed(req: Request, res: Response) {
      const query = parseInput(feedQuery, req.query);
      await deps.publisher.now();
      if (query.after !== undefined) await checkKept(deps, query.after);
      const after = query.after ?? 0;
      const found = await deps.events.after(after, query.limit ?? 100, query.type);
      const last = found.at(-1);
      if (last) res.set('X-Next-Cursor', String(last.id));
      const parts = found.flatMap(({ json }, i) => (i === 0 ? [json] : [COMMA, json]));
      res.type('json').send(Buffer.concat([feedHead, ...parts, FEED_TAIL]));
    },

    /** Server-Sent Events from `Last-Event-ID` (or `after`), else from now on. */
    async stream(req: Request, res: Response) {
      const query = parseInput(streamQuery, req.query);
      const header = req.headers['last-event-id'];
      const resumed =
        header === undefined ? undefined : parseInput(eventId(BAD_LAST_EVENT_ID), header);
      const after = resumed ?? query.after;
      if (after !== undefined) await checkKept(deps, after);
      streamEvents(req, res, deps, { after: after ?? (await deps.hub.head()), types: query.type });
    },
  };
}
