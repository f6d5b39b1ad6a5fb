import type { Server } from 'node:http';
import type { Logger } from 'pino';

interface ShutdownOptions {
  graceMs: number;
  logger: Logger;
  /** Closes the service's pools and clients once no request is left. */
  close: () => Promise<unknown>;
  exit?: (code: number) => void;
}

/**
 * Stops accepting connections, lets in-flight requests finish for up to
 * `graceMs`, then cuts what is left, closes the stores and exits 0.
 */
export function shutdownGracefully(server: Server, options: ShutdownOptions): () => Promise<void> {
  const { graceMs, logger, close, exit = process.exit } = options;
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      logger.info({ graceMs }, 'shutting down');
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      clearTimeout(timer);
      await close().catch((err) => logger.error({ err }, 'error while closing stores'));
      logger.info('stopped');
      exit(0);
    })();
    return closing;
  };
}

/** Runs the graceful shutdown on SIGTERM and SIGINT. */
export function onShutdownSignals(shutdown: () => Promise<void>): void {
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
