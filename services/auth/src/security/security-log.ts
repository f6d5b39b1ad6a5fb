import { OutcomeUnknownError, type Statement } from '@svc/common';
import type { Request } from 'express';
import { clientAddress } from '../http/client-address.js';
import type { NewSecurityEvent, SecurityEventRepository } from './security-event.repository.js';

/** How long a user's events are kept, and shown. */
export const RETENTION_MS = 90 * 24 * 3600 * 1000;
/**
 * How long the failed logins of usernames that do not exist are kept: they
 * are written only so that their refusal costs what a wrong password's does,
 * and no one reads them, so a guesser who cycles names fills no table.
 */
const NO_USER_RETENTION_MS = 3600 * 1000;
/** Each instance deletes the events past their retention at most this often, after a write. */
const SWEEP_EVERY_MS = 3600 * 1000;
const SWEEP_BATCH = 1000;
/** The columns' widths. */
const IP_MAX = 255;
const USER_AGENT_MAX = 256;

/** What a route tells of an event; the time, address and User-Agent come from the request. */
type EventOf = Pick<NewSecurityEvent, 'type' | 'sessionId' | 'newDevice'>;

/**
 * Writes a user's security events, each before the route answers, so an
 * answered request's event is never lost; a failed write is a failed request
 * (503) with nothing else written, as any store failure is.
 */
export function securityLog(events: SecurityEventRepository) {
  let nextSweep = 0;

  function eventOf(req: Request, { type, sessionId, newDevice }: EventOf): NewSecurityEvent {
    const userAgent = req.headers['user-agent'];
    return {
      type,
      at: new Date(),
      ip: clientAddress(req).slice(0, IP_MAX),
      userAgent: userAgent === undefined ? null : userAgent.slice(0, USER_AGENT_MAX),
      sessionId,
      newDevice,
    };
  }

  /** Deletes what is past retention, in batches, off the request's answer. */
  function sweepIfDue(req: Request): void {
    const now = Date.now();
    if (now < nextSweep) return;
    nextSweep = now + SWEEP_EVERY_MS;
    const cutoff = new Date(now - RETENTION_MS);
    const noUserCutoff = new Date(now - NO_USER_RETENTION_MS);
    const sweep = async () => {
      while ((await events.deleteOlderThan(cutoff, SWEEP_BATCH)) === SWEEP_BATCH);
      while ((await events.deleteOfNoUserBefore(noUserCutoff, SWEEP_BATCH)) === SWEEP_BATCH);
    };
    sweep().catch((err) => {
      nextSweep = 0;
      req.log.warn({ err }, 'deleting old security events failed');
    });
  }

  /** Takes back the event of a change that did not happen; if even that fails, what is kept is unknown. */
  async function withdraw(id: number): Promise<void> {
    await events.remove(id).catch((err: unknown) => {
      throw new OutcomeUnknownError('mysql', err);
    });
  }

  return {
    /**
     * `null`: a login of a username that does not exist, written so its refusal
     * costs what a wrong password's does. Resolves the event's id.
     */
    async ofUser(req: Request, userId: number | null, event: EventOf): Promise<number> {
      const id = await events.insert(userId, eventOf(req, event));
      sweepIfDue(req);
      return id;
    },

    /** The event's INSERT, for the transaction of the change it records. */
    entry(req: Request, userId: number, event: EventOf): Statement {
      return events.insertion(userId, eventOf(req, event));
    },

    /** Takes back an event written by `ofUser` whose change did not happen. */
    withdraw,

    /**
     * An ending of sessions, recorded before it is carried out (the routes
     * know the user by a session's username, its stored spelling): a failure
     * to write the event ends nothing. An ending that failed with nothing
     * ended, or that `happened` says ended nothing, takes its event back
     * before its answer; an outcome unknown keeps it, for the ending may have
     * happened (its retry writes its own).
     */
    async ending<T>(
      req: Request,
      username: string,
      event: EventOf,
      end: () => Promise<T>,
      happened: (result: T) => boolean = () => true,
    ): Promise<T> {
      const id = await events.insertForUsername(username, eventOf(req, event));
      let result: T;
      try {
        result = await end();
      } catch (err) {
        if (id !== undefined && !(err instanceof OutcomeUnknownError)) await withdraw(id);
        throw err;
      }
      if (id !== undefined && !happened(result)) await withdraw(id);
      sweepIfDue(req);
      return result;
    },
  };
}

export type SecurityLog = ReturnType<typeof securityLog>;
