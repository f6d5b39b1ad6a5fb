import { AppError, messageBody } from '@svc/common';
import type { Request, Response } from 'express';
import { LISTED } from '../http/messages.js';
import { newSecret } from './signature.js';
import {
  privateUrl,
  unresolvedUrl,
  WEBHOOK_ADDED,
  WEBHOOK_CHANGED,
  WEBHOOK_DELETED,
  WEBHOOK_ENABLED,
  WEBHOOK_RECOVERING,
  WEBHOOK_RETRIED,
  WEBHOOK_ROTATED,
} from './webhook.messages.js';
import type { WebhookRepository } from './webhook.repository.js';
import type { DeliveryQuery, NewWebhook, Recovery, WebhookChange } from './webhook.schema.js';
import { addressesOf, isPrivateAddress } from './webhook-address.js';

/** A webhook route's path parameters. */
type WebhookId = { id: number };

interface WebhookDeps {
  webhooks: WebhookRepository;
  /** WEBHOOK_ALLOW_PRIVATE */
  allowPrivate: boolean;
  /** WEBHOOK_OLD_SECRET_HOURS: how long a rotated-out secret still signs. */
  oldSecretHours: number;
}

/** A 400 unless every address the URL's host names is public (or private ones are allowed). */
async function checkReachable(url: URL, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const addresses = await addressesOf(url.hostname).catch(() => {
    throw new AppError(400, unresolvedUrl(url.hostname));
  });
  const inside = addresses.find(isPrivateAddress);
  if (inside) throw new AppError(400, privateUrl(inside));
}

export function webhookHandlers({ webhooks, allowPrivate, oldSecretHours }: WebhookDeps) {
  return {
    async add(_req: Request, res: Response, { body }: { body: NewWebhook }) {
      const { url, types, rateLimit } = body;
      await checkReachable(url, allowPrivate);
      const secret = newSecret();
      const added = await webhooks.add(url.href, types ?? null, secret, rateLimit ?? null);
      res.json(messageBody(200, WEBHOOK_ADDED, { ...added, secret }));
    },

    async list(_req: Request, res: Response) {
      res.json(messageBody(200, LISTED, await webhooks.list()));
    },

    async remove(_req: Request, res: Response, { params }: { params: WebhookId }) {
      await webhooks.remove(params.id);
      res.json(messageBody(200, WEBHOOK_DELETED));
    },

    async deliveries(
      _req: Request,
      res: Response,
      { params, query }: { params: WebhookId; query: DeliveryQuery },
    ) {
      const { status, limit } = query;
      res.json(
        messageBody(200, LISTED, await webhooks.deliveries(params.id, status, limit ?? 100)),
      );
    },

    async retry(_req: Request, res: Response, { params }: { params: WebhookId }) {
      const retried = await webhooks.retryFailed(params.id);
      res.json(messageBody(200, WEBHOOK_RETRIED, { retried }));
    },

    async change(
      _req: Request,
      res: Response,
      { params, body }: { params: WebhookId; body: WebhookChange },
    ) {
      res.json(messageBody(200, WEBHOOK_CHANGED, await webhooks.limit(params.id, body.rateLimit)));
    },

    async rotate(_req: Request, res: Response, { params }: { params: WebhookId }) {
      const secret = newSecret();
      const rotated = await webhooks.rotate(params.id, secret, oldSecretHours * 3600);
      res.json(messageBody(200, WEBHOOK_ROTATED, { ...rotated, secret }));
    },

    async enable(_req: Request, res: Response, { params }: { params: WebhookId }) {
      res.json(messageBody(200, WEBHOOK_ENABLED, await webhooks.enable(params.id)));
    },

    async recover(
      _req: Request,
      res: Response,
      { params, body }: { params: WebhookId; body: Recovery },
    ) {
      const through = await webhooks.recover(params.id, body.since);
      res.json(
        messageBody(200, WEBHOOK_RECOVERING, {
          since: body.since.toISOString(),
          throughEventId: String(through),
        }),
      );
    },
  };
}
