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

/**
 * A user's own sessions: see them, end one, end the others, end them all.
 * Each ending is recorded before it is carried out (securityLog.ending), so
 * its answer tells the truth: failed, nothing ended; done; or unknown, which
 * the same request sent again settles.
 */
export function sessionHandlers(sessions: SessionRepository, securityLog: SecurityLog) {
  return {
    async list(req: Request, res: Response) {
      const { token, username } = sessionOf(req);
      res.json(messageBody(200, FOUND, await sessions.list(username, token)));
    },

    /** Another user's session id is answered exactly as an unknown one. */
    async end(req: Request, res: Response) {
      const { token, username } = sessionOf(req);
      const sessionId = String(req.params.id);
      const listed = await sessions.list(username, token);
      if (!listed.some((session) => session.id === sessionId)) {
        throw new AppError(404, SESSION_NOT_FOUND);
      }
      const ended = await securityLog.ending(
        req,
        username,
        { type: 'session_ended', sessionId },
        () => sessions.end(username, token, sessionId),
        (done) => done,
      );
      // Ended by another request meanwhile: not this one's to tell.
      if (!ended) throw new AppError(404, SESSION_NOT_FOUND);
      res.json(messageBody(200, SESSION_ENDED));
    },

    async endOthers(req: Request, res: Response) {
      const { token, username } = sessionOf(req);
      const others = (await sessions.list(username, token)).filter((session) => !session.current);
      const ended =
        others.length === 0
          ? 0
          : await securityLog.ending(
              req,
              username,
              { type: 'session_ended' },
              () => sessions.endOthers(username, token),
              (count) => count > 0,
            );
      res.json(messageBody(200, OTHER_SESSIONS_ENDED, { ended }));
    },

    async endAll(req: Request, res: Response) {
      const { token, username } = sessionOf(req);
      const ended = await securityLog.ending(req, username, { type: 'logout_all' }, () =>
        sessions.endAll(username, token),
      );
      res.json(messageBody(200, ALL_SESSIONS_ENDED, { ended }));
    },
  };
}
