import { randomUUID } from 'node:crypto';
import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { AnswerBody } from './answer-body.js';

/** Node's own choice of status for a request it could not parse. */
function statusOf(err: NodeJS.ErrnoException): number {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 431;
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 413;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 408;
    default:
      return 400;
  }
}

/** The answer a request still being served on this socket will write, if any. */
type InFlight = { headersSent: boolean; writableFinished: boolean } & NodeJS.EventEmitter;

/**
 * Requests Node rejects before any route sees them (headers too large, a
 * malformed request line, a request too slow to arrive) get the service's
 * `envelope` with the status as code and its reason phrase, and an X-Request-Id,
 * where the socket can still take an answer; each is logged. Without this, Node
 * writes a bare status line with no body.
 *
 * A request the service is still answering on the same connection (a create
 * followed at once by garbage) gets its answer first: written over it, the
 * refusal would leave that client without the answer to what it asked,
 * though the work was done.
 */
export function answerClientErrors(server: Server, logger: Logger, envelope: AnswerBody): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const status = statusOf(err);
    const reqId = randomUUID();
    logger.warn(
      { reqId, status, reason: err.code ?? err.message },
      'request rejected by the HTTP parser',
    );
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refuse = () => {
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      const message = STATUS_CODES[status] ?? 'Bad Request';
      const body = JSON.stringify(envelope(status, message));
      socket.end(
        `HTTP/1.1 ${status} ${message}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-Id: ${reqId}\r\n` +
          'Access-Control-Allow-Origin: *\r\n' +
          'Connection: close\r\n\r\n' +
          body,
      );
    };
    const answering = (socket as Duplex & { _httpMessage?: InFlight })._httpMessage;
    if (!answering || answering.writableFinished) {
      refuse();
      return;
    }
    answering.once('finish', refuse);
    answering.once('close', () => {
      if (!answering.writableFinished) socket.destroy();
    });
  });
}
