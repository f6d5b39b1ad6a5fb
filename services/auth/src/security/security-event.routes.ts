import type { ResponseDoc } from '@svc/common';
import { z } from 'zod';
import {
  EXAMPLE_USER_AGENT,
  envelope,
  guardedFailures,
  success,
} from '../api-docs/responses.docs.js';
import { FOUND } from '../http/messages.js';
import type { AuthRoute } from '../http/routes.js';
import type { securityEventHandlers } from './security-event.handlers.js';
import { CURSOR_MALFORMED, PAGE_SIZE_RULE } from './security-event.messages.js';
import { SECURITY_EVENT_TYPES } from './security-event.repository.js';
import { securityEventsQuery } from './security-event.schema.js';

const event = z.strictObject({
  id: z.string().regex(/^\d+$/).describe("The event's id."),
  type: z
    .enum(SECURITY_EVENT_TYPES)
    .describe(
      '`login`; `login_failed` (a wrong password); `locked` (failures started a lock); ' +
        '`password_changed`; `session_ended` (logout, or sessions ended by the session routes); ' +
        '`logout_all`.',
    ),
  at: z.iso.datetime().describe('When it happened (ISO 8601, UTC).'),
  ip: z.string().describe("The request's client address (under TRUST_PROXY)."),
  userAgent: z
    .string()
    .max(256)
    .nullable()
    .describe("The request's User-Agent, cut at 256 characters; null when it sent none."),
  sessionId: z
    .string()
    .optional()
    .describe(
      'The session a login opened, or the one `DELETE /api/user/sessions/:id` ended, as GET /api/user/sessions names it.',
    ),
  newDevice: z
    .boolean()
    .optional()
    .describe('Logins only: true when no valid device token of the user came with it.'),
});

const example = [
  {
    id: '1042',
    type: 'login',
    at: '2025-03-01T08:00:00.000Z',
    ip: '203.0.113.7',
    userAgent: EXAMPLE_USER_AGENT,
    newDevice: true,
  },
  {
    id: '1041',
    type: 'login_failed',
    at: '2025-03-01T07:59:41.512Z',
    ip: '198.51.100.23',
    userAgent: null,
  },
];

const page: ResponseDoc = {
  ...success("The caller's events of the last 90 days, newest first, one page of them.", FOUND, {
    schema: z.array(event),
    example,
  }),
  headers: {
    'X-Total-Count': {
      description: 'First page only (no cursor): how many events the 90 days hold.',
      schema: z.int().nonnegative(),
      required: false,
    },
    'X-Next-Cursor': {
      description:
        'Unless this is the last page: the cursor of the next page (send it as `cursor`).',
      schema: z.string().regex(/^[A-Za-z0-9_-]+$/),
      required: false,
    },
    Link: {
      description: 'With X-Next-Cursor: `<the same list with cursor=…>; rel="next"` (RFC 8288).',
      schema: z.string(),
      required: false,
    },
  },
};

const badQuery: ResponseDoc = {
  description:
    'A `pageSize` out of 1 to 100, or a `cursor` that is not an X-Next-Cursor this service gave the caller, ' +
    'unaltered: the message names the parameter.',
  schema: envelope(
    400,
    z
      .string()
      .regex(/\b(pageSize|cursor|body)\b/)
      .meta({ examples: [`pageSize: ${PAGE_SIZE_RULE}`, `cursor: ${CURSOR_MALFORMED}`] }),
  ),
  example: { code: 400, message: `cursor: ${CURSOR_MALFORMED}` },
};

/** A user's own security log: method, path, middleware, handler and document. */
export const securityEventRoutes: AuthRoute<ReturnType<typeof securityEventHandlers>>[] = [
  {
    method: 'get',
    path: '/api/user/security-events',
    handler: (h) => h.list,
    summary: "The caller's security log: logins, failures, locks, password changes, ended sessions",
    tags: ['sessions'],
    guard: true,
    query: securityEventsQuery,
    responses: { ...guardedFailures, 200: page, 400: badQuery },
  },
];
