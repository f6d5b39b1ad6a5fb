import { BODY_FAULTS, NOT_JSON_TYPE, noSuchRow, notPositive } from '../http/messages.js';

/** What the webhook routes' documents show: their tag, examples, and the failures most of them share. */
export const tags = ['webhooks'];
export const exampleWebhook = {
  id: 1,
  url: 'https://shop.example/hooks/platform',
  types: ['order.created', 'order.completed'],
  rateLimit: null,
  disabledAt: null,
  disabledReason: null,
  createdAt: '2026-11-22T19:15:04.000Z',
};
export const exampleSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const missing = { 404: noSuchRow('webhook', 9), 400: notPositive('id') };
export const bodyFaults = { 413: BODY_FAULTS['too-large'], 415: NOT_JSON_TYPE };
