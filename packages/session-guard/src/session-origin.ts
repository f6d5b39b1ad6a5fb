import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { USER_AGENT_MAX_LENGTH } from './session-keys.js';

/** What a session records of the request that began it: Express's, Nest's or Node's own. */
export interface OriginRequest {
  headers: IncomingHttpHeaders;
  /** Express's `req.ip`, which follows the app's `trust proxy`; else the socket's address. */
  ip?: string;
  socket?: { remoteAddress?: string };
}

/** An address no request told. */
const UNKNOWN_ADDRESS = 'unknown';

/** The metadata's `ip` and optional `userAgent`, as script arguments. */
export function originArgs(request?: OriginRequest): string[] {
  const ip = request?.ip ?? request?.socket?.remoteAddress ?? UNKNOWN_ADDRESS;
  const userAgent = request?.headers['user-agent'];
  return userAgent === undefined ? [ip] : [ip, userAgent.slice(0, USER_AGENT_MAX_LENGTH)];
}

/** A session's public id: random, so it tells nothing of the token or its hash. */
export function newSessionId(): string {
  return randomBytes(16).toString('base64url');
}
