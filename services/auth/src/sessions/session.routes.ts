import { z } from 'zod';
import {
  EXAMPLE_USER_AGENT,
  failure,
  guardedFailures,
  guardedWriteFailures,
  success,
} from '../api-docs/responses.docs.js';
import { FOUND } from '../http/messages.js';
import type { AuthRoute } from '../http/routes.js';
import type { sessionHandlers } from './session.handlers.js';
import {
  ALL_SESSIONS_ENDED,
  OTHER_SESSIONS_ENDED,
  SESSION_ENDED,
  SESSION_NOT_FOUND,
} from './session.messages.js';

const instant = (what: string) => z.iso.datetime().describe(`${what} (ISO 8601, UTC).`);

const session = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,64}$/)
    .describe("The session's id, stable for its life; it tells nothing of the token."),
  current: z.boolean().describe('True for the session of the token this request carries.'),
  createdAt: instant('When the login began it'),
  lastSeenAt: instant('Its last guarded use, to within SESSION_TOUCH_SECONDS'),
  expiresAt: instant('When it ends unless ended before'),
  userAgent: z
    .string()
    .max(256)
    .nullable()
    .describe("The login's User-Agent, cut at 256 characters; null when it sent none."),
  ip: z.string().describe("The login's client address (under TRUST_PROXY)."),
});

const example = {
  id: 'Jm0xQ2v9T3aPqL8sWc1yZA',
  current: true,
  createdAt: '2025-03-01T08:00:00.000Z',
  lastSeenAt: '2025-03-01T08:41:00.000Z',
  expiresAt: '2025-03-01T09:00:00.000Z',
  userAgent: EXAMPLE_USER_AGENT,
  ip: '203.0.113.7',
};

const endedCount = (what: string) => ({
  schema: z.strictObject({ ended: z.int().nonnegative().describe(`How many ${what} ended.`) }),
  example: { ended: 2 },
});

/** A user's own sessions: method, path, middleware, handler and document. */
export const sessionRoutes: AuthRoute<ReturnType<typeof sessionHandlers>>[] = [
  {
    method: 'get',
    path: '/api/user/sessions',
    handler: (h) => h.list,
    summary: "The caller's live sessions, newest first",
    tags: ['sessions'],
    guard: true,
    responses: {
      200: success('Every live session of the caller, newest `createdAt` first.', FOUND, {
        schema: z.array(session),
        example: [example],
      }),
      ...guardedFailures,
    },
  },
  {
    method: 'delete',
    path: '/api/user/sessions/:id',
    handler: (h) => h.end,
    summary: "End one of the caller's sessions (the current one: a logout)",
    tags: ['sessions'],
    guard: true,
    params: z.object({ id: z.string().describe('A session id from GET /api/user/sessions.') }),
    responses: {
      200: success('The session has ended; its token gets 401 from every guard.', SESSION_ENDED),
      404: failure(
        "No live session of the caller has this id (another user's included); nothing ended.",
        404,
        SESSION_NOT_FOUND,
      ),
      ...guardedWriteFailures,
    },
  },
  {
    method: 'delete',
    path: '/api/user/sessions',
    handler: (h) => h.endOthers,
    summary: 'End every other session of the caller, keeping this one',
    tags: ['sessions'],
    guard: true,
    responses: {
      200: success('The other sessions have ended.', OTHER_SESSIONS_ENDED, endedCount('others')),
      ...guardedWriteFailures,
    },
  },
  {
    method: 'post',
    path: '/api/user/logout-all',
    handler: (h) => h.endAll,
    summary: 'End every session of the caller, this one included',
    tags: ['sessions'],
    guard: true,
    responses: {
      200: success('Every session has ended.', ALL_SESSIONS_ENDED, endedCount('sessions')),
      ...guardedWriteFailures,
    },
  },
];
