import { z } from 'zod';
import { limitField } from '../http/input.js';
import { BAD_LIMIT } from '../http/messages.js';
import { EVENT_TYPES } from '../store/events/outbox.js';
import { BAD_AFTER, BAD_TYPE } from './event.messages.js';

const EVENT_ID = /^\d{1,15}$/;

/** An event id as a client sends it back: digits, within JavaScript's exact integers. */
export const eventId = (text: string) => z.string(text).regex(EVENT_ID, text).transform(Number);

/** Comma-separated names, each once. */
const types = z
  .string(BAD_TYPE)
  .transform((text) => [...new Set(text.split(','))])
  .pipe(z.array(z.enum(EVENT_TYPES, BAD_TYPE)));

/** GET /api/events and GET /api/events/stream: `after`, `type`; the feed also takes `limit`. */
export const feedQuery = z.object({
  after: eventId(BAD_AFTER).optional().meta({
    description: 'the id of the last event the client has: events with a greater id follow',
  }),
  limit: limitField(BAD_LIMIT).optional().meta({
    description: 'events in the answer, 1 to 500 (100 when absent)',
  }),
  type: types.optional().meta({
    description: `only events of these types, comma-separated: ${EVENT_TYPES.join(', ')}`,
  }),
});

export const streamQuery = feedQuery.omit({ limit: true });

export type FeedQuery = z.output<typeof feedQuery>;
export type StreamQuery = z.output<typeof streamQuery>;

/** An event as the feed and the stream carry it. */
export const event = z.strictObject({
  id: z
    .string()
    .regex(EVENT_ID)
    .meta({ description: 'a decimal string, increasing in the order events are published' }),
  type: z.enum(EVENT_TYPES),
  createdAt: z.iso.datetime().meta({ description: 'when the change committed, ISO 8601 in UTC' }),
  data: z.looseObject({ id: z.int() }).nullable().meta({
    description:
      'the order, merchant or service as its list returns it, after the change; for webhook.disabled, the webhook as GET /api/webhooks lists it; null once the row is gone (no route deletes one: only SQL can)',
  }),
});
