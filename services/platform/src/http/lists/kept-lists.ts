import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { ListFamily } from '../../store/events/list-stamps.js';

/** A list's answer as sent: its exact body, and the headers that go with it. */
export interface ListAnswer {
  body: Buffer;
  headers: Record<string, string>;
  /** False when part of it may predate the stamp it was built at (a reused total): sent, not kept. */
  keep: boolean;
}

/** A list too long to keep: sent to the request that reads it as it is read, with no ETag. */
export interface StreamedList {
  stream(): Promise<void>;
}

/** What building a list gives: its answer, a list to stream, or none (its client left). */
export type BuiltList = ListAnswer | StreamedList | undefined;

interface Kept extends ListAnswer {
  stamp: string;
  etag: string;
  /** When it is built again even with its stamp unchanged. */
  until: number;
}

/**
 * How long a body is kept at most: rows written around the service (by hand
 * in SQL) make no event, and show within this time, as a long list's total
 * does (store/cached-counts.ts).
 */
export const KEPT_MS = 1000;

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

/**
 * The request's If-None-Match names `etag` (by the weak comparison RFC 9110
 * gives it, 13.1.2) or is `*`. Express's req.fresh also asks for no
 * `Cache-Control: no-cache` in the request, which fetch() adds to every
 * request with a condition: that header is for caches, and an origin server
 * evaluates the condition all the same.
 */
function named(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** A strong validator: the body's SHA-256, so equal tags are equal bytes, on every instance. */
const etagOf = (body: Buffer) =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/**
 * The list bodies this instance sent, kept while their rows are unchanged
 * (for KEPT_MS at most), at most `maxBytes` of them (LIST_CACHE_MB; the least
 * recently sent go first). A list whose family's stamp (store/events/
 * list-stamps.ts) is the one its kept body was built at is answered from it
 * without reading a row: 200 with the same bytes, or 304 when the client's
 * If-None-Match names its ETag. Requests for a list being built at that
 * stamp share that one build, unless it is streamed. A stamp that cannot be
 * read (none) leaves each list to its own read, kept by no one.
 */
export function keptLists({
  maxBytes,
  stamp,
}: {
  maxBytes: number;
  stamp: (family: ListFamily) => Promise<string | undefined>;
}) {
  /** Oldest sent first: a Map keeps the order its entries were set in. */
  const kept = new Map<string, Kept>();
  const building = new Map<string, Promise<Kept | StreamedList | undefined>>();
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

  /** The answer with its ETag, kept under `now` when there is one and the answer may be. */
  function tagged(key: string, now: string | undefined, built: BuiltList) {
    if (!built || 'stream' in built) return built;
    const entry = {
      ...built,
      stamp: now ?? '',
      etag: etagOf(built.body),
      until: Date.now() + KEPT_MS,
    };
    if (now !== undefined && built.keep) keep(key, entry);
    return entry;
  }

  /** The list built at this stamp: by this request, or by the one that asked first. */
  function shared(key: string, now: string, build: () => Promise<BuiltList>) {
    const id = `${now} ${key}`;
    const running = building.get(id);
    if (running) return { mine: false, made: running };
    const made = build().then((built) => tagged(key, now, built));
    building.set(id, made);
    const done = () => building.delete(id);
    made.then(done, done);
    return { mine: true, made };
  }

  /** The list's answer now: kept, built, or to stream. */
  async function current(key: string, family: ListFamily, build: () => Promise<BuiltList>) {
    const now = maxBytes > 0 ? await stamp(family) : undefined;
    const entry = kept.get(key);
    if (now !== undefined && entry?.stamp === now && Date.now() < entry.until) {
      counts.hits += 1;
      // Sent again: the most recent now.
      kept.delete(key);
      kept.set(key, entry);
      return entry;
    }
    counts.misses += 1;
    if (now === undefined) return tagged(key, now, await build());
    const { mine, made } = shared(key, now, build);
    const answer = await made;
    if (mine || (answer && !('stream' in answer))) return answer;
    // Streamed to the request that built it, or its client left: this one reads its own.
    return tagged(key, now, await build());
  }

  return {
    /**
     * Answers the list `req` asks for, of `family`'s rows: kept, or made by
     * `build`. Every answer but a streamed one carries its ETag and
     * `Cache-Control: no-cache`.
     */
    async send(
      req: Request,
      res: Response,
      family: ListFamily,
      build: () => Promise<BuiltList>,
    ): Promise<void> {
      const answer = await current(keyOf(req), family, build);
      if (!answer) return;
      if ('stream' in answer) return answer.stream();
      res.set(answer.headers).set({ ETag: answer.etag, 'Cache-Control': 'no-cache' });
      if (named(req.headers['if-none-match'], answer.etag)) {
        res.status(304).end();
        return;
      }
      res.type('json').send(answer.body);
    },

    /** The bytes it keeps at most: a list longer than that is streamed. */
    holds: maxBytes,

    /** Hits and misses since the start, and the bytes kept now (metrics). */
    counts: (): Readonly<typeof counts> => counts,
  };
}

export type KeptLists = ReturnType<typeof keptLists>;
