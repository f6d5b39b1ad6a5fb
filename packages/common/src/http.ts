import cors from 'cors';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.js';
import { requestLogger } from './request-logger.js';

interface BaseAppOptions {
  logger: Logger;
  /** Request metrics, counted from the start so every answer counts. */
  metrics?: Metrics;
  /** Serve GET /metrics on this app (false when METRICS_PORT gives it a listener of its own). */
  metricsRoute?: boolean;
  /** Response headers a browser script may read (Access-Control-Expose-Headers). */
  exposedHeaders?: string[];
}

/**
 * An Express app with the plumbing every service shares: request ids and the
 * access log, metrics, CORS open to any origin. Body parsing, routes and error
 * answers are the service's.
 */
export function createBaseApp(options: BaseAppOptions): Express {
  const { logger, metrics, metricsRoute = true, exposedHeaders } = options;
  const app = express();
  app.disable('x-powered-by');
  // An ETag hashes every body; for lists of megabytes that costs more than the rare 304 saves.
  app.disable('etag');
  app.use(requestLogger(logger));
  if (metrics) {
    app.use(metrics.requests);
    if (metricsRoute) app.get('/metrics', metrics.endpoint);
  }
  // Joined once: cors joins an array on every request.
  app.use(cors({ exposedHeaders: exposedHeaders?.join(',') }));
  return app;
}

/**
 * What was wrong with a request body, as express.json() reports it:
 * `malformed` (not JSON), `too-large`, `unsupported` (an encoding or charset it
 * does not take), `undecodable` (its Content-Encoding does not decode), or
 * `invalid` (any other refusal).
 */
export type BodyFault = 'malformed' | 'too-large' | 'unsupported' | 'undecodable' | 'invalid';

const FAULTS: Record<string, BodyFault> = {
  'entity.parse.failed': 'malformed',
  'entity.too.large': 'too-large',
  'encoding.unsupported': 'unsupported',
  'charset.unsupported': 'unsupported',
};

/** The HTTP status and fault of a body-parsing error; undefined for any other error. */
export function bodyFaultOf(err: unknown): { status: number; fault: BodyFault } | undefined {
  const { type, status } = (err ?? {}) as { type?: unknown; status?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  // The parser names each error with a `type`, except a body its Content-Encoding
  // does not decode (gzip that is not gzip): zlib's error with the parser's status.
  if (typeof type !== 'string') return { status: 400, fault: 'undecodable' };
  return { status, fault: FAULTS[type] ?? 'invalid' };
}
