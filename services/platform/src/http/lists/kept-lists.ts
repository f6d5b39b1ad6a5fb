import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { ListFamily } from '../../store/events/list-stamps.js';

/** A list's answer as sent: its exact body, and the headers that go with it. */
export interface ListAnswer {
  body: Buffer;
  headers: Record<string, string>;
}

interface Kept extends ListAnswer {
  stamp: string;
  etag: string;
}

/** The query parameters that change no list: `t`, the clients' cache-buster. */
const IGNORED = ['t'];

/** The list a request asks for: its path and query as sent, the ignored parameters left out. */
function keyOf(req: Request): string {
  const at = req.originalUrl.indexOf('?');
  if (at === -1) return req.originalUrl;
  const query = new URLSearchParams(req.originalUrl.slice(at + 1));
  for (const name of IGNORED) query.delete(name);
  return `${req.originalUrl.slice(0, at)}?${query}`;
}

/** A strong validator: the body's SHA-256, so equal tags are equal bytes, on every instance. */
const etagOf = (body: Buffer) =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/**
 * The list bodies this instance sent, kept while their rows are unchanged,
 * at most `maxBytes` of them (LIST_CACHE_MB; the least recently sent go
 * first). A list whose family's stamp (store/events/list-stamps.ts) is the
 * one its kept body was built at is answered from it without reading a row:
 * 200 with the same bytes, or 304 when the client's If-None-Match names its
 * ETag (Express's `req.fresh`). Requests for a list being built at that
 * stamp wait for that one build.
 */
export function keptLists({
  maxBytes,
  stamp,
}: {
  maxBytes: number;
  stamp: (family: ListFamily) => Promise<string>;
}) {
  /** Oldest sent first: a Map keeps the order its entries were set in. */
  const kept = new Map<string, Kept>();
  const building = new Map<string, Promise<Kept | undefined>>();
  const counts = { hits: 0, misses: 0, bytes: 0 };

  function keep(key: string, entry: Kept): void {
    const before = kept.get(key);
    if (before) counts.bytes -= before.body.length;
    kept.delete(key);
    if (entry.body.length > maxBytes) return;
    kept.set(key, entry);
    counts.bytes += entry.body.length;
    for (const [oldest, { body }] of kept) {
      if (counts.bytes <= maxBytes) break;
      kept.delete(oldest);
      counts.bytes -= body.length;
    }
  }

  const keptAs = (key: string, now: string, answer: ListAnswer): Kept => {
    const entry = { ...answer, stamp: now, etag: etagOf(answer.body) };
    keep(key, entry);
    return entry;
  };

  /**
   * The list built at this stamp: by this request, or by one that asked for
   * it first, whose build this one shares. Undefined when the build answered
   * its own request by itself (see send).
   */
  function built(key: string, now: string, build: () => Promise<ListAnswer | undefined>) {
    const id = `${now} ${key}`;
    const running = building.get(id);
    if (running) return { mine: false, made: running };
    const made = build().then((answer) => answer && keptAs(key, now, answer));
    building.set(id, made);
    const done = () => building.delete(id);
    made.then(done, done);
    return { mine: true, made };
  }

  return {
    /**
     * Answers the list `req` asks for, of `family`'s rows: kept, or made by
     * `build`, which may also answer by itself (a list too long to hold is
     * sent as it is read) and then gives undefined. Every answer built or
     * kept carries its ETag and `Cache-Control: no-cache`.
     */
    async send(
      req: Request,
      res: Response,
      family: ListFamily,
      build: () => Promise<ListAnswer | undefined>,
    ): Promise<void> {
      const key = keyOf(req);
      const now = await stamp(family);
      let entry = kept.get(key);
      if (entry?.stamp === now) {
        counts.hits += 1;
        // Sent again: the most recent now.
        kept.delete(key);
        kept.set(key, entry);
      } else {
        counts.misses += 1;
        const { mine, made } = built(key, now, build);
        entry = await made;
        if (!entry) {
          // Sent as it was read, to the request that built it: this one reads it too.
          if (mine) return;
          const own = await build();
          if (!own) return;
          entry = keptAs(key, now, own);
        }
      }
      res.set(entry.headers).set({ ETag: entry.etag, 'Cache-Control': 'no-cache' });
      if (req.fresh) {
        res.status(304).end();
        return;
      }
      res.type('json').send(entry.body);
    },

    /** The bytes it keeps at most: a list longer than that is sent as it is read. */
    holds: maxBytes,

    /** Hits and misses since the start, and the bytes kept now (metrics). */
    counts: (): Readonly<typeof counts> => counts,
  };
}

export type KeptLists = ReturnType<typeof keptLists>;
