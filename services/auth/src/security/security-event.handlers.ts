import { AppError, messageBody } from '@svc/common';
import type { Request, Response } from 'express';
import { FOUND } from '../http/messages.js';
import { parseQuery } from '../input/parse.js';
import { sessionOf } from '../sessions/session-guard.js';
import type { UserRepository } from '../users/user.repository.js';
import { decodeEventCursor, encodeEventCursor } from './event-cursor.js';
import type { SecretRepository } from './secret.repository.js';
import { CURSOR_MALFORMED } from './security-event.messages.js';
import type { SecurityEventRepository, SecurityEventRow } from './security-event.repository.js';
import { DEFAULT_PAGE_SIZE, securityEventsQuery } from './security-event.schema.js';
import { RETENTION_MS } from './security-log.js';

interface SecurityEventDeps {
  events: SecurityEventRepository;
  users: UserRepository;
  secrets: SecretRepository;
}

/** An event as its owner reads it: never a token or a password. */
function eventOf(row: SecurityEventRow) {
  return {
    id: String(row.id),
    type: row.type,
    at: row.at.toISOString(),
    ip: row.ip,
    userAgent: row.user_agent,
    ...(row.session_id === null ? {} : { sessionId: row.session_id }),
    ...(row.new_device === null ? {} : { newDevice: row.new_device === 1 }),
  };
}

/**
 * The caller's own events of the last 90 days, newest first, a page at a
 * time, as the platform's order list pages by cursor: the first page carries
 * X-Total-Count; every page but the last X-Next-Cursor and a Link to the next.
 * One row more than the page is read to know whether a next page exists.
 */
export function securityEventHandlers({ events, users, secrets }: SecurityEventDeps) {
  return {
    async list(req: Request, res: Response) {
      const { pageSize = DEFAULT_PAGE_SIZE, cursor } = parseQuery(securityEventsQuery, req.query);
      const { username } = sessionOf(req);
      const [user, secret] = await Promise.all([
        users.findByUsername(username),
        secrets.secret('events-cursor'),
      ]);
      if (!user) {
        res.json(messageBody(200, FOUND, []));
        return;
      }
      const after = cursor === undefined ? undefined : decodeEventCursor(secret, cursor, user.id);
      if (cursor !== undefined && !after) throw new AppError(400, `cursor: ${CURSOR_MALFORMED}`);
      const since = new Date(Date.now() - RETENTION_MS);
      const [rows, total] = await Promise.all([
        events.page(user.id, since, after, pageSize + 1),
        after ? undefined : events.count(user.id, since),
      ]);
      if (total !== undefined) res.set('X-Total-Count', String(total));
      const last = rows.length > pageSize ? rows[pageSize - 1] : undefined;
      if (last) {
        rows.length = pageSize;
        const next = encodeEventCursor(secret, { userId: user.id, at: last.at, id: last.id });
        setNextPage(req, res, next);
      }
      res.json(messageBody(200, FOUND, rows.map(eventOf)));
    },
  };
}

/** X-Next-Cursor, and a Link to the same list with the next cursor (RFC 8288). */
function setNextPage(req: Request, res: Response, cursor: string): void {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(req.query)) {
    if (name !== 'cursor' && typeof value === 'string') params.append(name, value);
  }
  params.append('cursor', cursor);
  res.set('X-Next-Cursor', cursor);
  res.set('Link', `<${req.baseUrl}${req.path}?${params}>; rel="next"`);
}
