import {
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  StorageType,
} from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
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
    }).catch((err: unknown) => {
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

  return {
    /** The stream's last message, the stream made first when it is missing. */
    end: async (): Promise<StreamEnd> => streamEnd(await connected()),

    /**
     * Publishes `events` in order after the stream's message `afterSeq`, each
     * with its id as Nats-Msg-Id (JetStream drops one it already holds) and
     * the sequence it must follow (it refuses one that would not: an earlier
     * one lost never leaves a later one stored). Resolves with how many, from
     * the first, JetStream acknowledged, and the first failure if any.
     */
    async publish(
      events: FeedEvent[],
      afterSeq: number,
    ): Promise<{ acknowledged: number; failure?: unknown }> {
      const js = jetstream(await connected(), { timeout: BROKER_TIMEOUT_MS });
      const acks = await Promise.allSettled(
        events.map((event, i) =>
          js.publish(`${SUBJECT_PREFIX}${event.type}`, event.json, {
            msgID: String(event.id),
            expect: { lastSequence: afterSeq + i },
            timeout: BROKER_TIMEOUT_MS,
          }),
        ),
      );
      const failed = acks.findIndex((ack) => ack.status === 'rejected');
      if (failed === -1) return { acknowledged: events.length };
      return {
        acknowledged: failed,
        failure: (acks[failed] as PromiseRejectedResult).reason,
      };
    },

    /** Closes the connection, once what it was sending is sent. */
    async close(): Promise<void> {
      const nc = await connection?.catch(() => undefined);
      await nc?.drain().catch(() => nc.close());
    },
  };
}

export type JetStreamEvents = ReturnType<typeof jetStreamEvents>;
