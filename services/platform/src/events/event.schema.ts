import { z } from 'zod';
import { BAD_LIMIT } from '../http/messages.js';
import { Invalid, rule } from '../input/fields.js';
import { BAD_AFTER, BAD_TYPE } from './event.messages.js';
import { EVENT_TYPES, type EventType } from './outbox.js';

const EVENT_ID = /^\d{1,15}$/;

/** An event id as a client sends it back: digits, within JavaScript's exact integers. */
export const eventId = (text: string) =>
  rule((input) =>
    typeof input === 'string' && EVENT_ID.test(input) ? Number(input) : new Invalid(text),
  );

const limit = rule((input) => {
  if (input === undefined) return 100;
  const value = typeof input === 'string' && /^\d{1,3}$/.test(input) ? Number(input) : 0;
  return value >= 1 && value <= 500 ? value : new Invalid(BAD_LIMIT);
});

const isType = (text: string): text is EventType =>
  (EVENT_TYPES as readonly string[]).includes(text);

const types = rule((input): EventType[] | Invalid => {
  const names = typeof input === 'string' ? input.split(',') : [];
  return names.length > 0 && names.every(isType) ? [...new Set(names)] : new Invalid(BAD_TYPE);
});

/** GET /api/events and GET /api/events/stream: `after`, `type`; the feed also takes `limit`. */
export const feedQuery = z.object({
  after: eventId(BAD_AFTER).optional().meta({
    description: 'the id of the last event the client has: events with a greater id follow',
    type: 'string',
    pattern: EVENT_ID.source,
  }),
  limit: limit.optional().meta({
    description: 'events in the answer, 1 to 500 (100 when absent)',
    type: 'string',
    pattern: '^\\d{1,3}$',
  }),
  type: types.optional().meta({
    description: `only events of these types, comma-separated: ${EVENT_TYPES.join(', ')}`,
    type: 'string',
  }),
});

export const streamQuery = feedQuery.omit({ limit: true });

/** An event as the feed and the stream carry it. */
export const event = z.strictObject({
  id: z
    .string()
    .regex(EVENT_ID)
    .meta({ description: 'a decimal string, increasing in commit order' }),
  type: z.enum(EVENT_TYPES),
  createdAt: z.iso.datetime().meta({ description: 'when the change committed, ISO 8601 in UTC' }),
  data: z.looseObject({ id: z.int() }).meta({
    description: 'the order, merchant or service as its list returns it, after the change',
  }),
});
