import type { RequestListener, Server } from 'node:http';
import type { Logger } from 'pino';
import type { AnswerBody } from './answer-body.js';
import type { HttpConfig } from './config.js';
import { listen } from './listen.js';
import { type Metrics, serveMetricsOn } from './metrics.js';
import { type ServiceUrls, serviceUrls } from './service-urls.js';

/**
 * Binds the service's port, and METRICS_PORT's own listener when metrics are
 * on and have one; what either answers outside the app is in the service's
 * `envelope`. Either failing ends start-up with its one-line ListenError.
 * `closeMetrics` stops the metrics listener, if any, for a graceful stop;
 * `urls` says where each is reached, for the start-up line.
 */
export async function serve(
  app: RequestListener,
  config: Pick<HttpConfig, 'PORT' | 'HOST' | 'SEND_IDLE_TIMEOUT_MS' | 'METRICS_PORT'>,
  { logger, envelope, metrics }: { logger: Logger; envelope: AnswerBody; metrics?: Metrics },
): Promise<{ server: Server; closeMetrics: () => Promise<void>; urls: ServiceUrls }> {
  const options = {
    port: config.PORT,
    host: config.HOST,
    logger,
    sendIdleTimeoutMs: config.SEND_IDLE_TIMEOUT_MS,
    envelope,
  };
  const server = await listen(app, options);
  const metricsServer =
    metrics && config.METRICS_PORT !== 0
      ? await serveMetricsOn(metrics, { ...options, port: config.METRICS_PORT })
      : undefined;
  const closeMetrics = () =>
    new Promise<void>((resolve) =>
      metricsServer ? metricsServer.close(() => resolve()) : resolve(),
    );
  return { server, closeMetrics, urls: serviceUrls(server, metricsServer, metrics !== undefined) };
}
