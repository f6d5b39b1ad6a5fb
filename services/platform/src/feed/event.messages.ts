import { EVENT_TYPES } from '../store/events/outbox.js';

/** The feed's and the stream's texts, under `message` (HTTP status as the code). */
export const BAD_AFTER = 'after must be an event id (digits)';
export const BAD_LAST_EVENT_ID = 'Last-Event-ID must be an event id (digits)';
export const BAD_TYPE = `type must be one or more of ${EVENT_TYPES.join(', ')}, separated by commas`;
export const eventsGone = (after: number, oldest: number) =>
  `the events after ${after} are no longer kept: the oldest kept is ${oldest}`;
export const eventsAhead = (after: number, newest: number) =>
  `event id ${after} is newer than any event (the newest is ${newest}): a cursor from another database, or from before a restore`;
