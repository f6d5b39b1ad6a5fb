import { z } from 'zod';
import { rowId } from '../api-docs/reply-schemas.js';
import { EVENT_TYPES, type EventType } from '../events/outbox.js';
import { BAD_LIMIT, NOT_AN_OBJECT, notPositive } from '../http/messages.js';
import { Invalid, rule } from '../input/fields.js';
import { BAD_STATUS, BAD_TYPES, BAD_URL } from './webhook.messages.js';

const isType = (text: unknown): text is EventType =>
  (EVENT_TYPES as readonly unknown[]).includes(text);

const url = rule((input) => {
  if (typeof input !== 'string' || input.length > 2048) return new Invalid(BAD_URL);
  try {
    const parsed = new URL(input);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:'
      ? parsed
      : new Invalid(BAD_URL);
  } catch {
    return new Invalid(BAD_URL);
  }
}).meta({ type: 'string', format: 'uri', description: 'where events are POSTed: http or https' });

const types = rule((input): EventType[] | null | Invalid => {
  if (input === undefined || input === null) return null;
  return Array.isArray(input) && input.length > 0 && input.every(isType)
    ? [...new Set(input)]
    : new Invalid(BAD_TYPES);
})
  .optional()
  .meta({
    type: 'array',
    items: { type: 'string', enum: [...EVENT_TYPES] },
    description: 'the event types to send; absent or null for every type',
  });

/** POST /api/webhooks */
export const newWebhook = z.object({ url, types }, { error: NOT_AN_OBJECT });

const webhookFields = {
  id: rowId,
  url: z.string(),
  types: z.array(z.enum(EVENT_TYPES)).nullable().meta({ description: 'null: every type' }),
  createdAt: z.iso.datetime(),
};

export const webhook = z.strictObject(webhookFields);
export const webhookWithSecret = z.strictObject({
  ...webhookFields,
  secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]+=*$/)
    .meta({ description: 'the signing secret, shown only here: `whsec_` and base64' }),
});

export const webhookParams = z.object({
  id: rule((input) =>
    typeof input === 'string' && /^\d{1,9}$/.test(input) && Number(input) > 0
      ? Number(input)
      : new Invalid(notPositive('id')),
  ).meta({ type: 'integer', minimum: 1 }),
});

export const deliveryQuery = z.object({
  status: rule((input) =>
    input === 'pending' || input === 'delivered' || input === 'failed'
      ? input
      : new Invalid(BAD_STATUS),
  )
    .optional()
    .meta({
      type: 'string',
      enum: ['pending', 'delivered', 'failed'],
      description: 'only deliveries of this status',
    }),
  limit: rule((input) => {
    const value = typeof input === 'string' && /^\d{1,3}$/.test(input) ? Number(input) : 0;
    return value >= 1 && value <= 500 ? value : new Invalid(BAD_LIMIT);
  })
    .optional()
    .meta({
      type: 'string',
      pattern: '^\\d{1,3}$',
      description: 'deliveries in the answer, 1 to 500 (100 when absent)',
    }),
});

const time = z.iso.datetime();

export const delivery = z.strictObject({
  id: z.int(),
  eventId: z.string(),
  eventType: z
    .enum(EVENT_TYPES)
    .nullable()
    .meta({ description: 'null once the event is no longer kept' }),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.int().min(0),
  lastAttemptAt: time.nullable(),
  nextAttemptAt: time.meta({ description: 'while pending: when the next attempt is due' }),
  responseStatus: z
    .int()
    .nullable()
    .meta({ description: "the receiver's last HTTP status; null when it gave none" }),
  error: z.string().nullable().meta({ description: 'why the last attempt failed' }),
});
