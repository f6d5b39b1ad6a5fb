import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Level, Logger } from 'pino';

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
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

const SERVICE_LOGGER = Symbol('service logger');
const REQUEST_LOGGER = Symbol('request logger');
const STARTED = Symbol('started');

interface LoggedRequest extends Request {
  [SERVICE_LOGGER]: Logger;
  [REQUEST_LOGGER]?: Logger;
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

/** The response's `close` listener, one function for every request. */
function logOutcome(this: Response): void {
  const req = this.req as LoggedRequest;
  const level = levelOf(this);
  if (!req[SERVICE_LOGGER].isLevelEnabled(level)) return;
  req.log[level](
    {
      req: {
        id: req.id,
        method: req.method,
        url: req.originalUrl,
        headers: req.headers,
        remoteAddress: req.socket.remoteAddress,
      },
      res: { statusCode: this.statusCode },
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
  return (req, res, next) => {
    const logged = req as LoggedRequest;
    logged[STARTED] = performance.now();
    logged[SERVICE_LOGGER] = logger;
    req.id = requestIdFrom(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', req.id);
    const prototype = Object.getPrototypeOf(req);
    if (!Object.hasOwn(prototype, 'log')) Object.defineProperty(prototype, 'log', lazyRequestLog);
    // `close` comes once, after `finish` or when the client left first.
    res.on('close', logOutcome);
    next();
  };
}
