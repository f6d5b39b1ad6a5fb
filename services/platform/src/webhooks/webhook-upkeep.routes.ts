import { z } from 'zod';
import type { Route } from '../http/routes.js';
import { bodyFaults, exampleSecret, exampleWebhook, missing, tags } from './webhook.examples.js';
import type { webhookHandlers } from './webhook.handlers.js';
import {
  BAD_RATE_LIMIT,
  BAD_SINCE,
  WEBHOOK_CHANGED,
  WEBHOOK_ENABLED,
  WEBHOOK_RECOVERING,
  WEBHOOK_ROTATED,
} from './webhook.messages.js';
import {
  recovery,
  webhook,
  webhookChange,
  webhookParams,
  webhookWithSecret,
} from './webhook.schema.js';

/** `{ code: 200, message, data: webhook }`, the answer of each change to one. */
const answered = (message: string, description: string) => ({
  description,
  schema: z.strictObject({ code: z.literal(200), message: z.literal(message), data: webhook }),
  example: { code: 200, message, data: exampleWebhook },
});

/** The webhook routes that keep one going, after Svix and Stripe: its rate limit, its secret's rotation, enabling it again, recovering what it missed. */
export const webhookUpkeepRoutes: Route<ReturnType<typeof webhookHandlers>>[] = [
  {
    method: 'patch',
    path: '/api/webhooks/:id',
    handler: (h) => h.change,
    admin: true,
    summary: "Change a webhook's rate limit",
    tags,
    params: webhookParams,
    body: webhookChange,
    bodyExample: { rateLimit: 5 },
    success: answered(WEBHOOK_CHANGED, 'The webhook as it is now'),
    failureTexts: { ...missing, 400: BAD_RATE_LIMIT, ...bodyFaults },
  },
  {
    method: 'post',
    path: '/api/webhooks/:id/rotate-secret',
    handler: (h) => h.rotate,
    admin: true,
    summary: 'Give a webhook a new signing secret; the old one signs beside it for a while',
    description:
      'Deliveries are signed with the new secret and, for WEBHOOK_OLD_SECRET_HOURS (24 by default), with the one it replaces too: `webhook-signature: v1,<new> v1,<old>`, which Standard Webhooks receivers accept with either. Then with the new one alone. A second rotation meanwhile drops the oldest.',
    tags,
    params: webhookParams,
    success: {
      description: 'The webhook with its new secret, shown only in this answer',
      schema: z.strictObject({
        code: z.literal(200),
        message: z.literal(WEBHOOK_ROTATED),
        data: webhookWithSecret,
      }),
      example: {
        code: 200,
        message: WEBHOOK_ROTATED,
        data: { ...exampleWebhook, secret: exampleSecret },
      },
    },
    failureTexts: missing,
  },
  {
    method: 'post',
    path: '/api/webhooks/:id/enable',
    handler: (h) => h.enable,
    admin: true,
    summary: 'Enable a webhook that was disabled',
    description:
      'A webhook whose attempts have all failed for WEBHOOK_DISABLE_AFTER_HOURS (120 by default) is disabled: nothing more is sent to it, its pending deliveries are failed, and a webhook.disabled event is written. Enabled, it receives the events from then on; POST /api/webhooks/:id/recover sends it those it missed.',
    tags,
    params: webhookParams,
    success: answered(WEBHOOK_ENABLED, 'The webhook, enabled'),
    failureTexts: missing,
  },
  {
    method: 'post',
    path: '/api/webhooks/:id/recover',
    handler: (h) => h.recover,
    admin: true,
    summary: 'Send a webhook again every event since a time that it subscribes to',
    description:
      'In the background, in id order, with the same webhook-id each event had: a delivery already made is made again. The events published when it is asked are sent; later ones arrive as usual.',
    tags,
    params: webhookParams,
    body: recovery,
    bodyExample: { since: '2026-11-22T00:00:00Z' },
    success: {
      description: 'The recovery is under way, up to this event id',
      schema: z.strictObject({
        code: z.literal(200),
        message: z.literal(WEBHOOK_RECOVERING),
        data: z.strictObject({
          since: z.iso.datetime(),
          throughEventId: z.string().meta({ description: 'the last event id it covers' }),
        }),
      }),
      example: {
        code: 200,
        message: WEBHOOK_RECOVERING,
        data: { since: '2026-11-22T00:00:00.000Z', throughEventId: '4213' },
      },
    },
    failureTexts: { ...missing, 400: BAD_SINCE, ...bodyFaults },
  },
];
