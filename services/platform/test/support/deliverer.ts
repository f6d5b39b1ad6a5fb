import type { Pool } from '@svc/common';
import { eventRepository } from '../../src/feed/event.repository.js';
import { platformDatabase } from '../../src/store/database.js';
import { webhookDeliverer } from '../../src/webhooks/deliverer.js';
import { webhookRepository } from '../../src/webhooks/webhook.repository.js';
import { testLogs } from './test-app.js';

/** A webhook deliverer on `pool`, started, as one instance of the platform runs it (loopback receivers allowed unless said). */
export function startDeliverer(
  pool: Pool,
  options: Partial<Parameters<typeof webhookDeliverer>[1]> = {},
) {
  const db = platformDatabase(pool);
  const deliverer = webhookDeliverer(
    { webhooks: webhookRepository(db), events: eventRepository(db), logger: testLogs().logger },
    { allowPrivate: true, ...options },
  );
  deliverer.start();
  return deliverer;
}
