import { z } from 'zod';
import { LISTED } from '../http/messages.js';
import type { Route } from '../http/routes.js';
import { bodyFaults, exampleSecret, exampleWebhook, missing, tags } from './webhook.examples.js';
import type { webhookHandlers } from './webhook.handlers.js';
import {
  BAD_STATUS,
  BAD_URL,
  WEBHOOK_ADDED,
  WEBHOOK_DELETED,
  WEBHOOK_RETRIED,
} from './webhook.messages.js';
import {
  delivery,
  deliveryQuery,
  newWebhook,
  webhook,
  webhookParams,
  webhookWithSecret,
} from './webhook.schema.js';
import { webhookUpkeepRoutes } from './webhook-upkeep.routes.js';

/** The webhook routes, all administrator routes. */
export const webhookRoutes: Route<ReturnType<typeof webhookHandlers>>[] = [
  {
    method: 'post',
    path: '/api/webhooks',
    handler: (h) => h.add,
    admin: true,
    summary: 'Add a webhook: the events of its types are POSTed to its URL, signed',
    description:
      'Deliveries follow Standard Webhooks: a POST of the event JSON with `webhook-id` (the event id), `webhook-timestamp` (seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body keyed with the secret>`. A 2xx answer within 10 s is delivered; anything else is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the delivery is failed. At least once: a redelivery carries the same webhook-id. The URL may not reach a loopback, private or link-local address unless WEBHOOK_ALLOW_PRIVATE=true.',
    tags,
    body: newWebhook,
    bodyExample: { url: exampleWebhook.url, types: exampleWebhook.types, rateLimit: 10 },
    success: {
      description: 'The webhook with its signing secret, shown only in this answer',
      schema: z.strictObject({
        code: z.literal(200),
        message: z.literal(WEBHOOK_ADDED),
        data: webhookWithSecret,
      }),
      example: {
        code: 200,
        message: WEBHOOK_ADDED,
        data: { ...exampleWebhook, rateLimit: 10, secret: exampleSecret },
      },
    },
    failureTexts: { 400: BAD_URL, ...bodyFaults },
  },
  {
    method: 'get',
    path: '/api/webhooks',
    handler: (h) => h.list,
    admin: true,
    summary: 'The webhooks, without their secrets; a disabled one says when and why',
    tags,
    success: {
      description: 'Every webhook, in id order',
      schema: z.strictObject({
        code: z.literal(200),
        message: z.literal(LISTED),
        data: z.array(webhook),
      }),
      example: { code: 200, message: LISTED, data: [exampleWebhook] },
    },
    failureTexts: {},
  },
  {
    method: 'delete',
    path: '/api/webhooks/:id',
    handler: (h) => h.remove,
    admin: true,
    summary: 'Delete a webhook and its deliveries',
    tags,
    params: webhookParams,
    success: {
      description: 'Deleted',
      schema: z.strictObject({ code: z.literal(200), message: z.literal(WEBHOOK_DELETED) }),
      example: { code: 200, message: WEBHOOK_DELETED },
    },
    failureTexts: missing,
  },
  {
    method: 'get',
    path: '/api/webhooks/:id/deliveries',
    handler: (h) => h.deliveries,
    admin: true,
    summary:
      "A webhook's deliveries, newest event first (status=failed: the ones whose retries are spent)",
    tags,
    params: webhookParams,
    query: deliveryQuery,
    success: {
      description: 'The deliveries',
      schema: z.strictObject({
        code: z.literal(200),
        message: z.literal(LISTED),
        data: z.array(delivery),
      }),
      example: {
        code: 200,
        message: LISTED,
        data: [
          {
            id: 12,
            eventId: '42',
            eventType: 'order.created',
            status: 'failed',
            attempts: 8,
            lastAttemptAt: '2026-11-23T23:01:02.345Z',
            nextAttemptAt: '2026-11-23T23:01:02.345Z',
            responseStatus: 500,
            error: 'HTTP 500',
          },
        ],
      },
    },
    failureTexts: { ...missing, 400: BAD_STATUS },
  },
  {
    method: 'post',
    path: '/api/webhooks/:id/retry',
    handler: (h) => h.retry,
    admin: true,
    summary: "Send a webhook's failed deliveries again, with a fresh round of retries",
    tags,
    params: webhookParams,
    success: {
      description: 'How many failed deliveries are pending again',
      schema: z.strictObject({
        code: z.literal(200),
        message: z.literal(WEBHOOK_RETRIED),
        data: z.strictObject({ retried: z.int().min(0) }),
      }),
      example: { code: 200, message: WEBHOOK_RETRIED, data: { retried: 3 } },
    },
    failureTexts: missing,
  },
  ...webhookUpkeepRoutes,
];
