import { Counter, Gauge, type Registry } from 'prom-client';
import type { EventType } from './store/events/outbox.js';
import type { ReplicaSet } from './store/replicas/replica-set.js';

/** What the events' parts of an instance tell (feed/event-outbox.ts). */
interface EventCounts {
  published: ReadonlyMap<EventType, number>;
  oldestUndeliveredAge(): Promise<number>;
  hub: { open(): number };
}

/**
 * What the platform adds to the shared metrics: new orders waiting for a turn
 * to share an INSERT. They wait for a MySQL connection as the pool's own queue
 * does, so saturation reads `mysql_pool_connections{state="queued"}` plus this.
 * With replicas, where list reads went and how far each replica trails.
 */
export function platformMetrics(
  registry: Registry,
  {
    orders,
    outbox,
    lists,
    deliveries,
    relay,
  }: {
    /** The order repository's shared INSERTs (orders/order.repository.ts). */
    orders: { insertsWaiting(): number };
    outbox: EventCounts;
    /** The list bodies kept (http/lists/kept-lists.ts). */
    lists: { counts(): { hits: number; misses: number; bytes: number } };
    /** Webhook attempts by outcome, where this instance delivers. */
    deliveries?: Record<string, number>;
    /** The JetStream relay, when EVENTS_NATS_URL sets one (feed/event-relay.ts). */
    relay?: { lag(): { events: number; seconds: number } };
  },
  replicas: ReplicaSet | undefined,
): void {
  new Gauge({
    name: 'mysql_insert_rows_waiting',
    help: 'New orders waiting for a MySQL connection, to be written together in one INSERT',
    registers: [registry],
    collect() {
      this.set(orders.insertsWaiting());
    },
  });
  eventMetrics(registry, outbox);
  keptListMetrics(registry, lists);
  new Counter({
    name: 'platform_webhook_deliveries_total',
    help: 'Webhook delivery attempts this instance made, by outcome: delivered, retried (to be tried again) or failed (retries spent)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const outcome of ['delivered', 'retried', 'failed']) {
        this.inc({ outcome }, deliveries?.[outcome] ?? 0);
      }
    },
  });
  if (relay) relayMetrics(registry, relay);
  if (replicas) replicaMetrics(registry, replicas);
}

function relayMetrics(registry: Registry, relay: { lag(): { events: number; seconds: number } }) {
  new Gauge({
    name: 'platform_events_relay_lag_events',
    help: 'Events numbered and not yet acknowledged by the JetStream stream, as this instance last looked',
    registers: [registry],
    collect() {
      this.set(relay.lag().events);
    },
  });
  new Gauge({
    name: 'platform_events_relay_lag_seconds',
    help: 'Age of the oldest event not yet relayed to JetStream (0 when none), as this instance last looked',
    registers: [registry],
    collect() {
      this.set(relay.lag().seconds);
    },
  });
}

function eventMetrics(
  registry: Registry,
  { published, oldestUndeliveredAge, hub }: EventCounts,
): void {
  new Counter({
    name: 'platform_events_written_total',
    help: 'Events written, by type, counted by the instance that published them (each event once, by one instance)',
    labelNames: ['type'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [type, count] of published) this.inc({ type }, count);
    },
  });
  new Gauge({
    name: 'platform_events_oldest_undelivered_seconds',
    help: 'Age of the oldest event not yet published or with a webhook delivery still pending (0: none)',
    registers: [registry],
    async collect() {
      this.set(await oldestUndeliveredAge());
    },
  });
  new Gauge({
    name: 'platform_event_streams_open',
    help: 'Event streams (GET /api/events/stream) open on this instance',
    registers: [registry],
    collect() {
      this.set(hub.open());
    },
  });
}

function keptListMetrics(
  registry: Registry,
  lists: { counts(): { hits: number; misses: number; bytes: number } },
): void {
  new Counter({
    name: 'platform_list_cache_requests_total',
    help: 'List requests by whether a kept body answered them (hit) or the rows were read (miss)',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      const { hits, misses } = lists.counts();
      this.reset();
      this.inc({ result: 'hit' }, hits);
      this.inc({ result: 'miss' }, misses);
    },
  });
  new Gauge({
    name: 'platform_list_cache_bytes',
    help: 'Bytes of list bodies kept now (at most LIST_CACHE_MB)',
    registers: [registry],
    collect() {
      this.set(lists.counts().bytes);
    },
  });
}

function replicaMetrics(registry: Registry, { targets, delays }: ReplicaSet): void {
  new Counter({
    name: 'mysql_list_reads_total',
    help: 'Statements of the list routes (a whole list, a page, a total) by the server that ran them',
    labelNames: ['target'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [target, count] of Object.entries(targets)) this.inc({ target }, count);
    },
  });
  new Gauge({
    name: 'mysql_replica_delay_seconds',
    help: "How far a replica's data trails the primary's (+Inf: it applies nothing); none while it does not answer",
    labelNames: ['replica'],
    registers: [registry],
    async collect() {
      this.reset();
      const seconds = await Promise.all(delays.map(({ delay }) => delay()));
      delays.forEach(({ name }, i) => {
        const value = seconds[i];
        if (value !== undefined) this.set({ replica: name }, value);
      });
    },
  });
}
