import type { KeyObject } from 'node:crypto';
import type { Logger } from '@svc/common';
import { every, type Periodic } from '../every.js';
import type { FeedEvent } from '../store/events/event-rows.js';
import type { Claimed, Receiver } from './delivery.repository.js';
import { RETRY_DELAYS_SECONDS } from './retry-schedule.js';
import { signature, signingKey } from './signature.js';
import type { WebhookRepository } from './webhook.repository.js';
import { postEvent } from './webhook-post.js';

/** How often each instance looks for deliveries due. */
const TICK_MS = 200;
/** Deliveries of one webhook claimed at once, and attempts of one webhook running at once. */
const CLAIM_ROWS = 32;
const PER_WEBHOOK = 8;
/**
 * A claimed attempt is due again only after this: a claim's attempts run
 * PER_WEBHOOK at a time, each within 10 s (webhook-post.ts), so all end well before.
 */
const LEASE_SECONDS = 60;

type Outcome = 'delivered' | 'retried' | 'failed';

/**
 * Sends the webhooks' deliveries: every instance runs one, and any may send
 * any delivery (claims lock rows with SKIP LOCKED, see the repository). Each
 * webhook is drained by its own worker, so a slow or dead receiver holds only
 * its own deliveries back. Returns its outcome counts (a metric) and `stop`.
 */
export function webhookDeliverer(
  {
    webhooks,
    events,
    logger,
  }: {
    webhooks: WebhookRepository;
    /** The events' bodies, as the feed gives them (feed/event.repository.ts). */
    events: { byIds(ids: number[]): Promise<Map<number, FeedEvent>> };
    logger: Logger;
  },
  {
    allowPrivate,
    retryDelays = RETRY_DELAYS_SECONDS,
    disableAfterHours = 120,
  }: {
    allowPrivate: boolean;
    retryDelays?: number[];
    /** WEBHOOK_DISABLE_AFTER_HOURS: a webhook whose attempts have all failed this long is disabled. */
    disableAfterHours?: number;
  },
) {
  const disableAfterSeconds = disableAfterHours * 3600;
  const disabledReason = `every attempt failed for ${disableAfterHours} hours (WEBHOOK_DISABLE_AFTER_HOURS)`;
  const outcomes: Record<Outcome, number> = { delivered: 0, retried: 0, failed: 0 };
  const draining = new Map<number, Promise<void>>();
  let loop: Periodic | undefined;
  let stopped = false;

  /** One attempt; a delivered one is added to `delivered` (by status), to be recorded with the others of its claim. */
  async function attempt(
    receiver: Receiver,
    keys: KeyObject[],
    claimed: Claimed,
    body: Buffer | undefined,
    delivered: Map<number, number[]>,
  ) {
    const id = String(claimed.eventId);
    const timestamp = Math.floor(Date.now() / 1000);
    const result = body
      ? await postEvent(
          new URL(receiver.url),
          {
            'content-type': 'application/json',
            'user-agent': 'platform-webhooks/1',
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': keys.map((key) => signature(key, id, timestamp, body)).join(' '),
          },
          body,
          allowPrivate,
        )
      : { error: 'the event is no longer kept' };
    const status = 'status' in result ? result.status : undefined;
    if (status !== undefined && status >= 200 && status < 300) {
      delivered.set(status, [...(delivered.get(status) ?? []), claimed.id]);
      return;
    }
    const error = 'error' in result ? result.error : `HTTP ${status}`;
    const delay = body ? retryDelays[claimed.attempt - 1] : undefined;
    if (delay === undefined) {
      await webhooks.record(claimed.id, { status: 'failed', responseStatus: status, error });
      outcomes.failed += 1;
    } else {
      await webhooks.record(claimed.id, {
        status: 'pending',
        responseStatus: status,
        error,
        retryInSeconds: delay,
      });
      outcomes.retried += 1;
    }
  }

  /**
   * Claims and sends the webhook's due deliveries until none is left (or its
   * rate limit lets no more go now), signed with its secret and, for a while
   * after a rotation, the one before. A claim whose attempts all failed marks
   * it failing, and disables it once it has been failing WEBHOOK_DISABLE_AFTER_HOURS.
   */
  async function drain(receiver: Receiver): Promise<void> {
    const keys = [receiver.secret, receiver.previousSecret].flatMap((secret) =>
      secret ? [signingKey(secret)] : [],
    );
    let failingFor = receiver.failingFor;
    for (;;) {
      const claimed = await webhooks.claim(
        receiver.id,
        CLAIM_ROWS,
        LEASE_SECONDS,
        receiver.rateLimit,
      );
      if (claimed.length === 0) return;
      const bodies = await events.byIds(claimed.map(({ eventId }) => eventId));
      const queue = [...claimed];
      const delivered = new Map<number, number[]>();
      const worker = async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          await attempt(receiver, keys, next, bodies.get(next.eventId)?.json, delivered);
        }
      };
      await Promise.all(Array.from({ length: PER_WEBHOOK }, worker));
      for (const [status, ids] of delivered) {
        await webhooks.delivered(ids, status);
        outcomes.delivered += ids.length;
      }
      if (delivered.size > 0) {
        if (failingFor !== null) await webhooks.delivering(receiver.id);
        failingFor = null;
      } else if (failingFor === null) {
        await webhooks.failing(receiver.id);
        failingFor = 0;
      } else if (
        failingFor >= disableAfterSeconds &&
        (await webhooks.disableIfFailing(receiver.id, disableAfterSeconds, disabledReason))
      ) {
        logger.warn({ webhook: receiver.id }, 'webhooks: disabled after failing for too long');
        return;
      }
      if (claimed.length < CLAIM_ROWS || stopped) return;
    }
  }

  /** Each webhook with deliveries due gets a worker, unless one is draining it already. */
  async function tick() {
    await webhooks.recoverSome();
    for (const receiver of await webhooks.receiversDue()) {
      if (draining.has(receiver.id) || stopped) continue;
      const work = drain(receiver)
        .catch((err) => logger.warn({ err, webhook: receiver.id }, 'webhooks: delivering failed'))
        .finally(() => draining.delete(receiver.id));
      draining.set(receiver.id, work);
    }
  }

  return {
    outcomes,
    start() {
      loop = every(TICK_MS, tick, { logger, what: 'webhooks: reading the deliveries due' });
    },
    /** Stops claiming; resolves once the attempts running end (each within 10 s). */
    async stop() {
      stopped = true;
      await loop?.stop();
      await Promise.all(draining.values());
    },
  };
}

export type WebhookDeliverer = ReturnType<typeof webhookDeliverer>;
