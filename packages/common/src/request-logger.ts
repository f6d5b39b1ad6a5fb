import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Level, Logger } from 'pino';
import { REDACTED } from './logger.js';

declare global {
  namespace Express {
    interface Request {
      /** Echoed as X-Request-Id and bound into every line of `log`. */
      id: string;
      /** The service's logger, bound to this request's id. */
      log: Logger;
    }
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Keeps a well-formed incoming X-Request-Id, replaces any other. */
function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

const SERVICE_LOGGER = Symbol('service logger');
const REQUEST_LOGGER = Symbol('request logger');
const ACCESS_LOGGER = Symbol('access logger');
const STARTED = Symbol('started');

interface LoggedRequest extends Request {
  [SERVICE_LOGGER]: Logger;
  [REQUEST_LOGGER]?: Logger;
  [ACCESS_LOGGER]: Logger;
  /** performance.now() when the request reached the app. */
  [STARTED]: number;
}

/**
 * `req.log`, made on first use: most requests never log on their own. It lives
 * on the app's request prototype, once, rather than on each request object.
 */
const lazyRequestLog: PropertyDescriptor = {
  configurable: true,
  get(this: LoggedRequest) {
    this[REQUEST_LOGGER] ??= this[SERVICE_LOGGER].child({ reqId: this.id });
    return this[REQUEST_LOGGER];
  },
  set(this: LoggedRequest, log: Logger) {
    this[REQUEST_LOGGER] = log;
  },
};

function levelOf(res: Response): Level {
  if (!res.writableFinished) return 'warn';
  if (res.statusCode >= 500) return 'error';
  return res.statusCode >= 400 ? 'warn' : 'info';
}

/** Request headers whose values are credentials: the line says they were sent, never what they held. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'token',
  'password',
  'x-api-key',
  'x-device-token',
]);

/** The request headers as the line shows them: every one, credentials as `[redacted]`. */
function loggedHeaders(headers: IncomingHttpHeaders): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const name in headers) {
    shown[name] = SECRET_HEADERS.has(name) ? REDACTED : headers[name];
  }
  return shown;
}

/** pino serializers for the access line's `req` and `res`: only what the line shows. */
const accessSerializers = {
  req: (req: Request) => ({
    id: req.id,
    method: req.method,
    url: req.originalUrl,
    headers: loggedHeaders(req.headers),
    remoteAddress: req.socket.remoteAddress,
  }),
  res: (res: Response) => ({ statusCode: res.statusCode }),
};

/**
 * The logger of the one line per request. Its `req` and `res` serializers
 * write a fixed set of fields, credentials already censored, so pino's
 * redaction (paths with wildcards, which cost more than the rest of the line
 * together) is not run on it. Every other line, `req.log`'s included, keeps
 * the service logger's redaction.
 */
function accessLoggerOf(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [] }, serializers: accessSerializers });
}

/** The response's `close` listener, one function for every request. */
function logOutcome(this: Response): void {
  const req = this.req as LoggedRequest;
  const level = levelOf(this);
  const logger = req[SERVICE_LOGGER];
  if (!logger.isLevelEnabled(level)) return;
  const access = req[ACCESS_LOGGER];
  // A child keeps the level it was made with; follow the service logger's.
  if (access.level !== logger.level) access.level = logger.level;
  // The request id is a field of the line, not a child logger's binding made for it.
  access[level](
    {
      reqId: req.id,
      req,
      res: this,
      responseTime: Math.round(performance.now() - req[STARTED]),
    },
    this.writableFinished ? 'request completed' : 'request aborted',
  );
}

/**
 * Gives each request an id (echoed as X-Request-Id), a child logger on `req.log`,
 * and one log line when the response ends: `request completed`, or `request
 * aborted` when the client left first.
 */
export function requestLogger(logger: Logger): RequestHandler {
  const access = accessLoggerOf(logger);
  return (req, res, next) => {
    const logged = req as LoggedRequest;
    logged[STARTED] = performance.now();
    logged[SERVICE_LOGGER] = logger;
    logged[ACCESS_LOGGER] = access;
    req.id = requestIdFrom(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', req.id);
    const prototype = Object.getPrototypeOf(req);
    if (!Object.hasOwn(prototype, 'log')) Object.defineProperty(prototype, 'log', lazyRequestLog);
    // `close` comes once, after `finish` or when the client left first.
    res.on('close', logOutcome);
    next();
  };
}
