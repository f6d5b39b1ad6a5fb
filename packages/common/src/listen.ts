import { createServer, type RequestListener, type Server } from 'node:http';

/** The port could not be bound; the message is the one line an operator needs. */
export class ListenError extends Error {}

const reasons: Record<string, string> = {
  EADDRINUSE: 'the port is already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'the address is not available on this machine',
};

/**
 * Serves `handler` on host:port. Resolves once the port is bound; rejects with a
 * ListenError otherwise, so start-up never reports "listening" while serving nothing.
 */
export function listen(handler: RequestListener, port: number, host: string): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException) => {
      const reason = reasons[err.code ?? ''] ?? err.message;
      reject(new ListenError(`cannot listen on port ${port} (host ${host}): ${reason}`));
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve(server);
    });
  });
}
