import { AppError } from '@svc/common';
import type { RequestHandler } from 'express';
import { messageBody } from '../http/envelope.js';
import { FOUND } from '../http/messages.js';
import {
  ALL_SESSIONS_ENDED,
  OTHER_SESSIONS_ENDED,
  SESSION_ENDED,
  SESSION_NOT_FOUND,
} from './session.messages.js';
import type { SessionRepository } from './session.repository.js';
import { sessionOf } from './session-guard.js';

type SessionHandlers = Record<'list' | 'end' | 'endOthers' | 'endAll', RequestHandler>;

/** A user's own sessions: see them, end one, end the others, end them all. */
export function sessionHandlers(sessions: SessionRepository): SessionHandlers {
  const list: RequestHandler = async (req, res) => {
    const { token, username } = sessionOf(req);
    res.json(messageBody(200, FOUND, await sessions.list(username, token)));
  };

  /** Another user's session id is answered exactly as an unknown one. */
  const end: RequestHandler = async (req, res) => {
    const { token, username } = sessionOf(req);
    const ended = await sessions.end(username, token, String(req.params.id));
    if (!ended) throw new AppError(404, SESSION_NOT_FOUND);
    res.json(messageBody(200, SESSION_ENDED));
  };

  const endOthers: RequestHandler = async (req, res) => {
    const { token, username } = sessionOf(req);
    const ended = await sessions.endOthers(username, token);
    res.json(messageBody(200, OTHER_SESSIONS_ENDED, { ended }));
  };

  const endAll: RequestHandler = async (req, res) => {
    const { token, username } = sessionOf(req);
    const ended = await sessions.endAll(username, token);
    res.json(messageBody(200, ALL_SESSIONS_ENDED, { ended }));
  };

  return { list, end, endOthers, endAll };
}
