import { AppError, messageBody } from '@svc/common';
import type { Request, Response } from 'express';
import { FOUND } from '../http/messages.js';
import type { SecurityLog } from '../security/security-log.js';
import {
  ALL_SESSIONS_ENDED,
  OTHER_SESSIONS_ENDED,
  SESSION_ENDED,
  SESSION_NOT_FOUND,
} from './session.messages.js';
import type { SessionRepository } from './session.repository.js';
import { sessionOf } from './session-guard.js';

/** A user's own sessions: see them, end one, end the others, end them all. */
export function sessionHandlers(sessions: SessionRepository, securityLog: SecurityLog) {
  return {
    async list(req: Request, res: Response) {
      const { token, username } = sessionOf(req);
      res.json(messageBody(200, FOUND, await sessions.list(username, token)));
    },

    /** Another user's session id is answered exactly as an unknown one. */
    async end(req: Request, res: Response) {
      const { token, username } = sessionOf(req);
      const ended = await sessions.end(username, token, String(req.params.id));
      if (!ended) throw new AppError(404, SESSION_NOT_FOUND);
      const sessionId = String(req.params.id);
      await securityLog.ofUsername(req, username, { type: 'session_ended', sessionId });
      res.json(messageBody(200, SESSION_ENDED));
    },

    async endOthers(req: Request, res: Response) {
      const { token, username } = sessionOf(req);
      const ended = await sessions.endOthers(username, token);
      if (ended > 0) await securityLog.ofUsername(req, username, { type: 'session_ended' });
      res.json(messageBody(200, OTHER_SESSIONS_ENDED, { ended }));
    },

    async endAll(req: Request, res: Response) {
      const { token, username } = sessionOf(req);
      const ended = await sessions.endAll(username, token);
      await securityLog.ofUsername(req, username, { type: 'logout_all' });
      res.json(messageBody(200, ALL_SESSIONS_ENDED, { ended }));
    },
  };
}
