import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EventPosition } from './security-event.repository.js';

/** Where a walk through one user's events stands: after this event. */
interface EventWalk extends EventPosition {
  userId: number;
}

const VERSION = 1;
const POSITION_BYTES = 1 + 4 + 6 + 6;
const MAC_BYTES = 16;

const macOf = (secret: Buffer, position: Buffer) =>
  createHmac('sha256', secret).update(position).digest().subarray(0, MAC_BYTES);

/**
 * The cursor of the next page: `version | user id | at (ms) | event id` and an
 * HMAC of it, in base64url (letters, digits, - and _). It is bound to its user:
 * another user's cursor is no cursor.
 */
export function encodeEventCursor(secret: Buffer, { userId, at, id }: EventWalk): string {
  const position = Buffer.alloc(POSITION_BYTES);
  position.writeUInt8(VERSION, 0);
  position.writeUInt32BE(userId, 1);
  position.writeUIntBE(at.getTime(), 5, 6);
  position.writeUIntBE(id, 11, 6);
  return Buffer.concat([position, macOf(secret, position)]).toString('base64url');
}

/** The position a cursor names for this user; undefined when it is not one made for them, unaltered. */
export function decodeEventCursor(
  secret: Buffer,
  cursor: string,
  userId: number,
): EventPosition | undefined {
  const bytes = Buffer.from(cursor, 'base64url');
  // The decoder skips stray characters and spare bits: only the text it would write is the cursor.
  if (bytes.length !== POSITION_BYTES + MAC_BYTES || bytes.toString('base64url') !== cursor) {
    return undefined;
  }
  const position = bytes.subarray(0, POSITION_BYTES);
  if (!timingSafeEqual(macOf(secret, position), bytes.subarray(POSITION_BYTES))) return undefined;
  if (position.readUInt8(0) !== VERSION || position.readUInt32BE(1) !== userId) return undefined;
  return { at: new Date(position.readUIntBE(5, 6)), id: position.readUIntBE(11, 6) };
}
