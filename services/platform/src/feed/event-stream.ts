import type { Request, Response } from 'express';
import { statusEnvelope } from '../http/envelopes.js';
import type { FeedEvent } from '../store/events/event-rows.js';
import type { EventType } from '../store/events/outbox.js';
import type { EventRepository } from './event.repository.js';
import type { EventHub } from './event-hub.js';

/** Unsent bytes a stream may hold before it waits for its reader. */
const HIGH_WATER = 256 * 1024;
/** A reader that takes nothing of what is waiting for this long is cut off. */
const SLOW_READER_MS = 10_000;
/** Events read from the database at once by a stream that is behind the hub. */
const CATCH_UP_ROWS = 500;

const HEARTBEAT = Buffer.from(': keep-alive\n\n');

/** One event as Server-Sent Events write it: its id, its type, and its JSON on one line. */
const frame = ({ id, type, json }: FeedEvent) =>
  Buffer.concat([Buffer.from(`id: ${id}\nevent: ${type}\ndata: `), json, Buffer.from('\n\n')]);

/**
 * Sends the events after `after` (of `types`, when given) as they are
 * published, until the client leaves. A stream that is behind reads from the
 * database a page at a time, then from the hub's memory. What waits to be sent
 * stays under HIGH_WATER (plus one page): past it the stream waits for its
 * reader, and a reader that takes nothing for SLOW_READER_MS is cut off.
 */
export function streamEvents(
  req: Request,
  res: Response,
  { hub, events }: { hub: EventHub; events: EventRepository },
  { after, types }: { after: number; types?: readonly EventType[] },
): void {
  const wanted = types && new Set<EventType>(types);
  let position = after;
  let pumping = false;
  let again = false;
  let closed = false;

  open(res);

  async function pump(): Promise<void> {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        for (;;) {
          const batch = hub.since(position) ?? (await events.after(position, CATCH_UP_ROWS));
          if (closed || batch.length === 0) break;
          for (const event of batch) {
            if (!wanted || wanted.has(event.type)) res.write(frame(event));
            position = event.id;
          }
          if (res.writableLength > HIGH_WATER && !(await drained(res))) {
            req.log.warn({ position }, 'events: a stream reader took nothing for 10 s, cut off');
            res.destroy();
            return;
          }
        }
      } while (again && !closed);
    } catch (err) {
      req.log.warn({ err }, 'events: a stream failed, closing it');
      res.destroy();
    } finally {
      pumping = false;
    }
  }

  const leave = hub.add({
    published: () => void pump(),
    heartbeat: () => {
      if (res.writableLength < HIGH_WATER) res.write(HEARTBEAT);
    },
    end: () => res.end(),
  });
  res.on('close', () => {
    closed = true;
    leave();
  });
  void pump();
}

/** The 200 of a stream, its headers sent at once, and a first comment. */
function open(res: Response): void {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
    // A stream ends only when one side leaves: its connection is not kept for another request.
    Connection: 'close',
  });
  res.flushHeaders();
  res.write(': events\n\n');
}

/**
 * A stream that ends at once with one `event: error` message, its data the
 * routes' failure body `{ code: 400, message }`; with no `id:` line, so a
 * client's Last-Event-ID stays what it was.
 */
export function refuseStream(res: Response, message: string): void {
  open(res);
  res.end(`event: error\ndata: ${JSON.stringify(statusEnvelope.body(400, message))}\n\n`);
}

/** True once what waits is sent; false when the reader took none of it for SLOW_READER_MS or left. */
function drained(res: Response): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (ok: boolean) => () => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = settle(true);
    const onClose = settle(false);
    const timer = setTimeout(settle(false), SLOW_READER_MS);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}
