import {
  createServer,
  IncomingMessage,
  type RequestListener,
  type Server,
  type ServerOptions,
  ServerResponse,
} from 'node:http';
import type { Logger } from 'pino';
import type { AnswerBody } from './answer-body.js';
import { answerClientErrors } from './client-error.js';

/** The port could not be bound; the message is the one line an operator needs. */
export class ListenError extends Error {}

const reasons: Record<string, string> = {
  EADDRINUSE: 'the port is already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'the address is not available on this machine',
};

export interface ListenOptions {
  port: number;
  host: string;
  logger: Logger;
  /** SEND_IDLE_TIMEOUT_MS: a socket with no traffic either way this long is destroyed. */
  sendIdleTimeoutMs: number;
  /** The body of a request Node refused before any route saw it (see answerClientErrors). */
  envelope: AnswerBody;
}

/** A slow client may take this long to send its headers, and its whole request. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;

/** Each Express app's classes, made once however often it is served. */
const classesOf = new WeakMap<RequestListener, ServerOptions>();

/**
 * Node's request and response classes for `handler`: when it is an Express
 * app, subclasses of Node's whose prototypes lead to the app's own
 * (`app.request`, `app.response`), which the app then names instead. Express
 * gives every request and response its app's prototypes with
 * Object.setPrototypeOf; done to an object Node already made, that gives it a
 * new hidden class in V8, and the property reads along the whole path see
 * more shapes than they cache. Made with them, Express's call changes nothing
 * (order create's CPU per order, measured against the code before: the git
 * history of the platform README, "Express's prototypes").
 */
function messageClasses(handler: RequestListener): ServerOptions {
  const known = classesOf.get(handler);
  if (known) return known;
  const app = handler as RequestListener & { request?: object; response?: object };
  if (!app.request || !app.response) return {};
  class AppRequest extends IncomingMessage {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  class AppResponse extends ServerResponse {}
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype;
  app.response = AppResponse.prototype;
  const classes = {
    IncomingMessage: AppRequest,
    ServerResponse: AppResponse as typeof ServerResponse,
  };
  classesOf.set(handler, classes);
  return classes;
}

/**
 * Serves `handler` on host:port. Resolves once the port is bound; rejects with a
 * ListenError otherwise, so start-up never reports "listening" while serving nothing.
 *
 * A client that stops reading its answer leaves the socket silent: after
 * `sendIdleTimeoutMs` the socket is destroyed, the response closes, and whatever
 * the request held (a streaming query's connection) is released. Idle sockets
 * between requests end after Node's keep-alive timeout, long before that.
 */
export function listen(handler: RequestListener, options: ListenOptions): Promise<Server> {
  const { port, host, logger, sendIdleTimeoutMs, envelope } = options;
  const server = createServer(
    {
      ...messageClasses(handler),
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
    },
    handler,
  );
  server.setTimeout(sendIdleTimeoutMs);
  answerClientErrors(server, logger, envelope);
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
