import { z } from 'zod';
import { rowId } from '../http/docs/reply-schemas.js';
import { limitField, textAsNumber } from '../http/input.js';
import { BAD_LIMIT, NOT_AN_OBJECT, notPositive } from '../http/messages.js';
import { EVENT_TYPES } from '../store/events/outbox.js';
import { BAD_RATE_LIMIT, BAD_SINCE, BAD_STATUS, BAD_TYPES, BAD_URL } from './webhook.messages.js';

const isWebUrl = (text: string) =>
  text.length <= 2048 && URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);

const url = z
  .string(BAD_URL)
  .refine(isWebUrl, BAD_URL)
  .meta({ format: 'uri', description: 'where events are POSTed: http or https' })
  .transform((text) => new URL(text));

/** Absent or null is every type; null is read as absent, so the document's type stays the array. */
const types = z.preprocess(
  (input) => input ?? undefined,
  z
    .array(z.enum(EVENT_TYPES, BAD_TYPES), BAD_TYPES)
    .refine((names) => names.length > 0, BAD_TYPES)
    .meta({ description: 'the event types to send; absent or null for every type' })
    .transform((names) => [...new Set(names)])
    .optional(),
);

/** Deliveries per second at most; null (or absent, at creation) for no limit. */
const rateLimit = z
  .int(BAD_RATE_LIMIT)
  .min(1, BAD_RATE_LIMIT)
  .max(10_000, BAD_RATE_LIMIT)
  .nullable()
  .meta({
    description:
      'deliveries per second at most: a burst of up to this many may go at once, then this many a second; none is dropped. null: no limit',
  });

/** POST /api/webhooks */
export const newWebhook = z.object(
  { url, types, rateLimit: rateLimit.optional() },
  { error: NOT_AN_OBJECT },
);

export type NewWebhook = z.output<typeof newWebhook>;

/** PATCH /api/webhooks/:id */
export const webhookChange = z.object({ rateLimit }, { error: NOT_AN_OBJECT });

export type WebhookChange = z.output<typeof webhookChange>;

/** POST /api/webhooks/:id/recover */
export const recovery = z.object(
  {
    since: z
      .string(BAD_SINCE)
      .refine((text) => z.iso.datetime({ offset: true }).safeParse(text).success, BAD_SINCE)
      .meta({ format: 'date-time', description: 'every event from this time on is sent again' })
      .transform((text) => new Date(text)),
  },
  { error: NOT_AN_OBJECT },
);

export type Recovery = z.output<typeof recovery>;

const webhookFields = {
  id: rowId,
  url: z.string(),
  types: z.array(z.enum(EVENT_TYPES)).nullable().meta({ description: 'null: every type' }),
  rateLimit: z.int().nullable().meta({ description: 'deliveries per second at most; null: none' }),
  disabledAt: z.iso
    .datetime()
    .nullable()
    .meta({ description: 'when it was disabled (nothing is sent to it); null while enabled' }),
  disabledReason: z.string().nullable().meta({ description: 'why it was disabled' }),
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

const NOT_AN_ID = notPositive('id');

/** Nine digits at most: `z.number()`, as `z.int()` would write its 2^53 bound into the document. */
export const webhookParams = z.object({
  id: z
    .preprocess(textAsNumber(/^\d{1,9}$/), z.number(NOT_AN_ID).min(1, NOT_AN_ID))
    .meta({ type: 'integer' }),
});

export const deliveryQuery = z.object({
  status: z
    .enum(['pending', 'delivered', 'failed'], BAD_STATUS)
    .optional()
    .meta({ description: 'only deliveries of this status' }),
  limit: limitField(BAD_LIMIT)
    .optional()
    .meta({ description: 'deliveries in the answer, 1 to 500 (100 when absent)' }),
});

export type DeliveryQuery = z.output<typeof deliveryQuery>;

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
  nextAttemptAt: time.meta({
    description:
      'while pending: when the next attempt is due; once failed: when it failed (it is listed, and retried by POST /api/webhooks/:id/retry, for EVENT_RETENTION_DAYS from then)',
  }),
  responseStatus: z
    .int()
    .nullable()
    .meta({ description: "the receiver's last HTTP status; null when it gave none" }),
  error: z.string().nullable().meta({ description: 'why the last attempt failed' }),
});
