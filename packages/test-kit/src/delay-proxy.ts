import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** A TCP proxy on a loopback port, as a server farther away than loopback would be. */
export interface DelayProxy {
  readonly host: string;
  readonly port: number;
  /** Stops listening and ends every connection through it, at once. */
  close(): Promise<void>;
}

/**
 * Forwards what `from` sends to `to`, each chunk (and the end) no earlier than
 * `delayMs` after it arrived, in the order it arrived.
 */
function forwardLate(from: Socket, to: Socket, delayMs: number): void {
  const queue: { due: number; chunk: Buffer | null }[] = [];
  let scheduled = false;
  const schedule = (due: number) => {
    scheduled = true;
    setTimeout(flush, Math.max(0, due - performance.now()));
  };
  const flush = () => {
    scheduled = false;
    if (to.destroyed) return;
    for (let next = queue[0]; next && next.due <= performance.now(); next = queue[0]) {
      queue.shift();
      if (next.chunk) to.write(next.chunk);
      else to.end();
    }
    if (queue[0]) schedule(queue[0].due);
  };
  const enqueue = (chunk: Buffer | null) => {
    const due = performance.now() + delayMs;
    queue.push({ due, chunk });
    if (!scheduled) schedule(due);
  };
  from.on('data', (chunk: Buffer) => enqueue(chunk));
  from.on('end', () => enqueue(null));
}

/**
 * Starts a TCP proxy to `target` on a free loopback port that holds every
 * chunk `delayMs` in each direction, so a round trip through it takes at least
 * 2 × `delayMs` longer than a direct one. Bytes pass unchanged and in order.
 */
export async function startDelayProxy(options: {
  target: { host: string; port: number };
  delayMs: number;
}): Promise<DelayProxy> {
  const { target, delayMs } = options;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({ host: target.host, port: target.port, allowHalfOpen: true });
    track(client);
    track(upstream);
    const endBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', endBoth);
    upstream.on('error', endBoth);
    forwardLate(client, upstream, delayMs);
    forwardLate(upstream, client, delayMs);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
