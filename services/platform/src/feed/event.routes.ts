import { z } from 'zod';
import { LISTED } from '../http/messages.js';
import type { Route } from '../http/routes.js';
import { exampleOrder } from '../orders/order.routes.js';
import type { eventHandlers } from './event.handlers.js';
import { BAD_AFTER, eventsGone } from './event.messages.js';
import { event, feedQuery, streamQuery } from './event.schema.js';

const tags = ['events'];

const exampleEvent = {
  id: '42',
  type: 'order.created',
  createdAt: '2026-11-22T19:15:04.123Z',
  data: { ...exampleOrder, id: 7 },
};

/** The feed and the stream: administrator routes, as events carry phone numbers. */
export const eventRoutes: Route<ReturnType<typeof eventHandlers>>[] = [
  {
    method: 'get',
    path: '/api/events',
    handler: (h) => h.feed,
    admin: true,
    summary: 'Events after an id, oldest first (the feed)',
    description:
      'Every change the platform makes is an event, written in the same transaction as the change. Ids are decimal strings, increasing in the order events are published, without gaps: a reader that resumes after an id misses no event, and the events of one order, merchant or service come in the order of its changes (across rows they are not in commit order). Send the last id you have as `after` to read on; without it the feed starts at the oldest kept event (EVENT_RETENTION_DAYS). An `after` newer than any event is HTTP 400: a cursor from another database, or from before a restore.',
    tags,
    query: feedQuery,
    success: {
      description: 'The events; X-Next-Cursor is the last id returned (send it as `after`)',
      schema: z.strictObject({
        code: z.literal(200),
        message: z.literal(LISTED),
        data: z.array(event),
      }),
      example: { code: 200, message: LISTED, data: [exampleEvent] },
      headers: {
        'X-Next-Cursor': {
          description: 'the id of the last event returned; absent when none was',
          schema: z.string(),
          required: false,
        },
      },
    },
    failureTexts: { 400: BAD_AFTER, 410: eventsGone(5, 1200) },
  },
  {
    method: 'get',
    path: '/api/events/stream',
    handler: (h) => h.stream,
    admin: true,
    summary: 'Events as they are published, as Server-Sent Events (text/event-stream)',
    description:
      'Each event is written as `id: <id>`, `event: <type>` and `data: <the event JSON>`. The stream starts after `Last-Event-ID` (what browsers send when they reconnect), or `after`, or else with the events published from now on. A comment line comes at least every 15 s. A reader that takes nothing for 10 s while events wait is cut off: reconnect with Last-Event-ID. A `Last-Event-ID` or `after` newer than any event (a cursor from another database, or from before a restore) is answered with one `event: error` message whose data is `{ code: 400, message }`, then the stream ends: close the EventSource, which would reconnect with the same id.',
    tags,
    query: streamQuery,
    headers: z.object({
      'Last-Event-ID': z
        .string()
        .optional()
        .meta({ description: 'the id of the last event received: the stream resumes after it' }),
    }),
    success: {
      description: 'the events, one SSE message each, and comments',
      mediaType: 'text/event-stream',
      schema: z.string().meta({
        description:
          'Server-Sent Events: per event `id: <id>`, `event: <type>` and `data: <the event JSON>`, then an empty line; `: keep-alive` comments between',
      }),
      example: `id: 42\nevent: order.created\ndata: ${JSON.stringify(exampleEvent)}\n\n`,
    },
    failureTexts: { 400: BAD_AFTER, 410: eventsGone(5, 1200) },
  },
];
