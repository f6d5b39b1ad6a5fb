import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/**
 * What a fault does to the connection whose client sent the matching bytes:
 * - `cut-before`: the chunk is never forwarded; both sides are reset at once
 *   (the store never saw the request: "cut before COMMIT");
 * - `cut-after`: the chunk is forwarded, nothing the store answers on that
 *   connection is, and both sides are reset `settleMs` later (the store did
 *   the work, its answer was lost: "after COMMIT was sent, before its answer");
 * - `stall`: the chunk and everything after it, both ways, are held until the
 *   fault's `release()` (forwarded then, in order) or `cut()` (a hung network).
 */
export type FaultKind = 'cut-before' | 'cut-after' | 'stall';

/** A fault waiting for its bytes, or met. */
export interface Fault {
  /** Resolves once a client sent the matching bytes and the fault was applied. */
  readonly met: Promise<void>;
  /** A stall: forwards what it held, in order, and lets the connection run on. */
  release(): void;
  /** A stall: resets both sides of the held connection. */
  cut(): void;
}

/** A TCP proxy on a loopback port between a client and its store. */
export interface FaultProxy {
  readonly host: string;
  readonly port: number;
  /**
   * The next chunk a client sends through any connection that contains
   * `match` (bytes as latin1 text, so SQL and Redis commands match as
   * written; a match may straddle two chunks) meets `kind`. Faults are met
   * in the order they were asked for, one chunk each. With `next`, the
   * fault meets the chunk the client sends next on that connection instead
   * (the execution of a statement that the matching chunk prepared).
   */
  fault(
    match: string | RegExp,
    kind: FaultKind,
    options?: { settleMs?: number; next?: boolean },
  ): Fault;
  /** Resets every connection through the proxy now (the store gone for its clients). */
  cutAll(): void;
  /** While true, a new connection is reset as soon as it is accepted (the store down). */
  refuse(on: boolean): void;
  /** Connections open through the proxy now. */
  connections(): number;
  /** Stops listening and ends every connection through it, at once. */
  close(): Promise<void>;
}

interface Pending {
  match: string | RegExp;
  kind: FaultKind;
  settleMs: number;
  next: boolean;
  meet: () => void;
  onHeld: (held: Link) => void;
}

/** One client's connection and its upstream, with what each direction holds back. */
class Link {
  /** Bytes kept from the last client chunk, so a match may straddle two chunks. */
  private tail = '';
  private holding = false;
  private dropReplies = false;
  private readonly held: { to: Socket; chunk: Buffer | null }[] = [];
  /** A fault for the client's next chunk on this connection. */
  armed: Pending | undefined;

  constructor(
    readonly client: Socket,
    readonly upstream: Socket,
    private readonly delayMs: number,
  ) {}

  reset(): void {
    for (const socket of [this.client, this.upstream]) {
      if (!socket.destroyed) socket.resetAndDestroy();
    }
  }

  close(): void {
    this.client.destroy();
    this.upstream.destroy();
  }

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
    for (const { to, chunk } of this.held.splice(0)) this.send(to, chunk);
  }

  dropAnswers(): void {
    this.dropReplies = true;
  }

  /** The client's chunk as text to match, with the tail of the one before. */
  textOf(chunk: Buffer, longest: number): string {
    const text = this.tail + chunk.toString('latin1');
    this.tail = text.slice(-Math.max(0, longest - 1));
    return text;
  }

  forward(to: Socket, chunk: Buffer | null): void {
    if (to === this.client && this.dropReplies) return;
    if (this.holding) this.held.push({ to, chunk });
    else this.send(to, chunk);
  }

  private send(to: Socket, chunk: Buffer | null): void {
    const write = () => {
      if (to.destroyed) return;
      if (chunk) to.write(chunk);
      else to.end();
    };
    if (this.delayMs > 0) setTimeout(write, this.delayMs);
    else write();
  }
}

const matches = (text: string, match: string | RegExp) =>
  typeof match === 'string' ? text.includes(match) : match.test(text);

/**
 * Starts a TCP proxy to `target` on a free loopback port. Bytes pass unchanged
 * and in order, each chunk `delayMs` late in each direction (0 unless given,
 * so a round trip through it takes 2 × `delayMs` longer than a direct one),
 * until a fault asked for meets them.
 */
export async function startFaultProxy(options: {
  target: { host: string; port: number };
  delayMs?: number;
}): Promise<FaultProxy> {
  const { target, delayMs = 0 } = options;
  const links = new Set<Link>();
  const pending: Pending[] = [];
  let refusing = false;

  const longestMatch = () =>
    Math.max(0, ...pending.map(({ match }) => (typeof match === 'string' ? match.length : 256)));

  /** The first pending fault the chunk meets, taken off the list. */
  function faultFor(link: Link, chunk: Buffer): Pending | undefined {
    if (pending.length === 0) return undefined;
    const text = link.textOf(chunk, longestMatch());
    const at = pending.findIndex(({ match }) => matches(text, match));
    return at < 0 ? undefined : pending.splice(at, 1)[0];
  }

  function fromClient(link: Link, chunk: Buffer): void {
    let met = link.armed;
    link.armed = undefined;
    if (!met) {
      met = faultFor(link, chunk);
      if (met?.next) {
        link.armed = met;
        met = undefined;
      }
    }
    if (!met) {
      link.forward(link.upstream, chunk);
      return;
    }
    if (met.kind === 'cut-before') {
      link.reset();
    } else if (met.kind === 'cut-after') {
      link.dropAnswers();
      link.forward(link.upstream, chunk);
      setTimeout(() => link.reset(), met.settleMs);
    } else {
      link.hold();
      link.forward(link.upstream, chunk);
      met.onHeld(link);
    }
    met.meet();
  }

  const server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({ host: target.host, port: target.port, allowHalfOpen: true });
    const link = new Link(client, upstream, delayMs);
    links.add(link);
    const cut = () => link.reset();
    for (const socket of [client, upstream]) {
      socket.on('error', cut);
      socket.on('close', () => {
        if (client.destroyed && upstream.destroyed) links.delete(link);
      });
    }
    if (refusing) {
      cut();
      return;
    }
    client.on('data', (chunk: Buffer) => fromClient(link, chunk));
    client.on('end', () => link.forward(upstream, null));
    upstream.on('data', (chunk: Buffer) => link.forward(client, chunk));
    upstream.on('end', () => link.forward(client, null));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const cutAll = () => {
    for (const link of links) link.reset();
  };

  return {
    host: '127.0.0.1',
    port,
    fault(match, kind, { settleMs = 200, next = false } = {}) {
      let meet = () => {};
      const met = new Promise<void>((resolve) => {
        meet = resolve;
      });
      let held: Link | undefined;
      let settled: 'release' | 'cut' | undefined;
      pending.push({
        match,
        kind,
        settleMs,
        next,
        meet,
        onHeld(link) {
          held = link;
          if (settled === 'release') link.release();
          if (settled === 'cut') link.reset();
        },
      });
      return {
        met,
        release() {
          settled = 'release';
          held?.release();
        },
        cut() {
          settled = 'cut';
          held?.reset();
        },
      };
    },
    cutAll,
    refuse(on) {
      refusing = on;
    },
    connections: () => links.size,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const link of links) link.close();
      await closed;
    },
  };
}
