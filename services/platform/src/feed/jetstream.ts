import {
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  StorageType,
} from '@nats-io/jetstream';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import type { FeedEvent } from '../store/events/event-rows.js';

/** Every event's subject is this and its type: platform.events.order.created. */
const SUBJECT_PREFIX = 'platform.events.';

/** How long a publish waits for JetStream's acknowledgement, and a request of the stream's state its answer. */
const BROKER_TIMEOUT_MS = 5000;

/** What the stream holds last: its sequence, and the event id of that message (0 for none). */
interface StreamEnd {
  seq: number;
  id: number;
}

/**
 * The platform's events on a NATS JetStream stream (`stream`, made with file
 * storage and the subjects platform.events.> when missing), reached at `url`.
 * Connects when first used, and again after a failure to connect; a
 * connection lost later reconnects by itself, and what was published while
 * it was away is sent once it is back.
 */
export function jetStreamEvents({ url, stream }: { url: string; stream: string }) {
  let connection: Promise<NatsConnection> | undefined;
  const connected = () =>
    (connection ??= connect({
      servers: url.split(','),
      name: 'platform events relay',
      timeout: BROKER_TIMEOUT_MS,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
    })
      .then((nc) => {
        void forgetEndOnDisconnect(nc);
        return nc;
      })
      .catch((err: unknown) => {
        connection = undefined;
        throw err;
      }));

  async function streamEnd(nc: NatsConnection): Promise<StreamEnd> {
    const streams = (await jetstreamManager(nc, { timeout: BROKER_TIMEOUT_MS })).streams;
    try {
      const seq = (await streams.info(stream)).state.last_seq;
      if (seq === 0) return { seq, id: 0 };
      const last = await streams.getMessage(stream, { seq });
      return { seq, id: Number(last?.header.get('Nats-Msg-Id')) || 0 };
    } catch (err) {
      if (!(err instanceof JetStreamApiError) || err.code !== JetStreamApiCodes.StreamNotFound) {
        throw err;
      }
      await streams.add({
        name: stream,
        subjects: [`${SUBJECT_PREFIX}>`],
        storage: StorageType.File,
      });
      return { seq: 0, id: 0 };
    }
  }

  /** The stream's end as this relay's last publish left it, or as read after one failed; forgotten on a disconnect. */
  let known: StreamEnd | undefined;

  // Away from the broker, reading the end fails at once, as a step should.
  async function forgetEndOnDisconnect(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') known = undefined;
    }
  }

  return {
    /**
     * The stream's last message, the stream made first when it is missing:
     * the one this relay's last publish left, unless it is older than event
     * `kept` (another instance relayed since). One left by another instance
     * since then only makes the next publish fail, as each message names the
     * sequence it must follow, and the end is read again.
     */
    async end(kept: number): Promise<StreamEnd> {
      if (!known || known.id < kept) known = await streamEnd(await connected());
      return known;
    },

    /**
     * Publishes `events` in order after the stream's message `afterSeq`, each
     * with its id as Nats-Msg-Id (JetStream drops one it already holds) and
     * the sequence it must follow (it refuses one that would not: an earlier
     * one lost never leaves a later one stored). All but the last go without
     * an acknowledgement of their own: the last one's says every one before
     * it was stored. Resolves with how many, from the first, the stream
     * holds, and the failure if not all.
     */
    async publish(
      events: FeedEvent[],
      afterSeq: number,
    ): Promise<{ acknowledged: number; failure?: unknown }> {
      const nc = await connected();
      const last = events.length - 1;
      for (const [i, event] of events.slice(0, last).entries()) {
        const h = headers();
        h.set('Nats-Msg-Id', String(event.id));
        h.set('Nats-Expected-Last-Sequence', String(afterSeq + i));
        nc.publish(`${SUBJECT_PREFIX}${event.type}`, event.json, { headers: h });
      }
      const final = events[last] as FeedEvent;
      try {
        await jetstream(nc, { timeout: BROKER_TIMEOUT_MS }).publish(
          `${SUBJECT_PREFIX}${final.type}`,
          final.json,
          {
            msgID: String(final.id),
            expect: { lastSequence: afterSeq + last },
            timeout: BROKER_TIMEOUT_MS,
          },
        );
        known = { seq: afterSeq + events.length, id: final.id };
        return { acknowledged: events.length };
      } catch (failure) {
        // The stream holds a first part of them, in order, up to its last message.
        known = await streamEnd(nc).catch(() => undefined);
        const end = known?.id ?? 0;
        return { acknowledged: events.filter((event) => event.id <= end).length, failure };
      }
    },

    /** Closes the connection, once what it was sending is sent. */
    async close(): Promise<void> {
      const nc = await connection?.catch(() => undefined);
      await nc?.drain().catch(() => nc.close());
    },
  };
}

export type JetStreamEvents = ReturnType<typeof jetStreamEvents>;
