import { OutcomeUnknownError } from '@svc/common';
import type { CredentialStamp } from '@svc/session-guard';
import type { Request } from 'express';
import type { SessionRepository } from '../sessions/session.repository.js';

/**
 * A login's session, from the password's last check (login) or the second
 * factor's (login/2fa): opened, then committed by a MySQL write (its `login`
 * event); until that is written, the session is ended again on any failure,
 * so a failed login leaves nothing; the write done, the login happened. Only
 * an outcome the service cannot know (the write's, or an ending that failed
 * too) is answered as one.
 */
export function sessionOpening(sessions: SessionRepository, ttlSeconds: number) {
  async function end(token: string, username: string): Promise<void> {
    await sessions.revoke(token, username).catch((cause: unknown) => {
      throw new OutcomeUnknownError('redis', cause);
    });
  }

  return {
    /** The session's id and lifetime, or null when the password changed since `stamp`. */
    open: (req: Request, username: string, token: string, stamp: CredentialStamp) =>
      sessions.create(token, username, ttlSeconds, req, stamp),

    /** Runs `write`; a failure, or false (refused), ends the session again. */
    async commit(token: string, username: string, write: () => Promise<unknown>): Promise<boolean> {
      let written: unknown;
      try {
        written = await write();
      } catch (err) {
        await end(token, username);
        throw err;
      }
      if (written === false) await end(token, username);
      return written !== false;
    },

    /** Once the answer is certain: what the trim could not do, the next login does. */
    async trim(req: Request, token: string, username: string): Promise<void> {
      await sessions
        .trim(token, username)
        .catch((err: unknown) => req.log.warn({ err }, 'trimming the sessions failed'));
    },
  };
}

export type SessionOpening = ReturnType<typeof sessionOpening>;
