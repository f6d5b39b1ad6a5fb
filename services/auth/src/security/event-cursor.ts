import { openCursor, signCursor } from '@svc/common';
import type { EventPosition } from './security-event.repository.js';

/** Where a walk through one user's events stands: after this event. */
interface EventWalk extends EventPosition {
  userId: number;
}

const VERSION = 1;
const POSITION_BYTES = 1 + 4 + 6 + 6;

/**
 * The cursor of the next page: `version | user id | at (ms) | event id`,
 * signed (common's signCursor). It is bound to its user: another user's
 * cursor is no cursor.
 */
export function encodeEventCursor(secret: Buffer, { userId, at, id }: EventWalk): string {
  const position = Buffer.alloc(POSITION_BYTES);
  position.writeUInt8(VERSION, 0);
  position.writeUInt32BE(userId, 1);
  position.writeUIntBE(at.getTime(), 5, 6);
  position.writeUIntBE(id, 11, 6);
  return signCursor(secret, position);
}

/** The position a cursor names for this user; undefined when it is not one made for them, unaltered. */
export function decodeEventCursor(
  secret: Buffer,
  cursor: string,
  userId: number,
): EventPosition | undefined {
  const position = openCursor(secret, cursor, POSITION_BYTES);
  if (!position || position.readUInt8(0) !== VERSION || position.readUInt32BE(1) !== userId) {
    return undefined;
  }
  return { at: new Date(position.readUIntBE(5, 6)), id: position.readUIntBE(11, 6) };
}
