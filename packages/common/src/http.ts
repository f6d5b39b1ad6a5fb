import cors from 'cors';
import express, {
  type ErrorRequestHandler,
  type Express,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { Logger } from 'pino';
import { AppError, StoreUnavailableError } from './app-error.js';
import type { Metrics } from './metrics.js';
import { requestLogger } from './request-logger.js';

/** What went wrong, before a service's envelope shapes it. */
export interface Failure {
  status: number;
  message: string;
  /** English detail naming the field or cause, for envelopes that carry a text. */
  detail?: string;
  data?: unknown;
}

/** Writes a failure in the service's own envelope. */
export type FailureRenderer = (req: Request, res: Response, failure: Failure) => void;

/** Auth-style envelope: the HTTP status equals the body code. */
export const renderStatusEnvelope: FailureRenderer = (_req, res, failure) => {
  const body: { code: number; message: string; data?: unknown } = {
    code: failure.status,
    message: failure.message,
  };
  if (failure.data !== undefined) body.data = failure.data;
  res.status(failure.status).json(body);
};

export interface BaseAppOptions {
  logger: Logger;
  bodyLimitKb?: number;
  /** Request metrics, counted from the start so body errors count too. */
  metrics?: Metrics;
  /** Serve GET /metrics on this app (false when METRICS_PORT gives it a listener of its own). */
  metricsRoute?: boolean;
}

/** An Express app with the plumbing every service shares, ready for its routers. */
export function createBaseApp(options: BaseAppOptions): Express {
  const { logger, bodyLimitKb = 100, metrics, metricsRoute = true } = options;
  const app = express();
  app.disable('x-powered-by');
  // An ETag hashes every body; for lists of megabytes that costs more than the rare 304 saves.
  app.disable('etag');
  app.use(requestLogger(logger));
  if (metrics) {
    app.use(metrics.requests);
    if (metricsRoute) app.get('/metrics', metrics.endpoint);
  }
  app.use(cors());
  app.use(express.json({ limit: `${bodyLimitKb}kb` }));
  return app;
}

/** The JSON 404 for every path no router answered. */
export function notFound(render: FailureRenderer = renderStatusEnvelope): RequestHandler {
  return (req, res) => render(req, res, { status: 404, message: 'Not Found', detail: 'Not Found' });
}

/** Turns any error into a JSON answer; nothing falls through to Express's HTML page. */
export function errorHandler(render: FailureRenderer = renderStatusEnvelope): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    const failure = toFailure(err);
    if (failure.status >= 500) req.log.error({ err }, 'request failed');
    render(req, res, failure);
  };
}

/** Classifies an error thrown by a handler or by body parsing. */
export function toFailure(err: unknown): Failure {
  if (err instanceof StoreUnavailableError) {
    return { status: 503, message: err.message, detail: `${err.store} is unavailable` };
  }
  if (err instanceof AppError) {
    return { status: err.status, message: err.message, detail: err.message, data: err.data };
  }
  const type = (err as { type?: unknown } | null)?.type;
  if (type === 'entity.parse.failed') {
    return {
      status: 400,
      message: '请求体不是合法的JSON (body)',
      detail: 'request body is not valid JSON',
    };
  }
  if (type === 'entity.too.large') {
    return { status: 413, message: '请求体过大', detail: 'request body is too large' };
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return {
      status: 415,
      message: '不支持的请求体编码 (body)',
      detail: 'request body encoding is not supported',
    };
  }
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, message: '请求无效 (body)', detail: 'request is invalid' };
  }
  return { status: 500, message: '服务器内部错误', detail: 'internal error' };
}
