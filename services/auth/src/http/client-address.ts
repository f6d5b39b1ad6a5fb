import type { Request } from 'express';

/** The client's address: the socket's, or the one TRUST_PROXY lets X-Forwarded-For name. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
