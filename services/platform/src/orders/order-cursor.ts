import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where a walk of the order list stands: after this row, in the list of this status. */
interface WalkPosition {
  /** undefined: every order. */
  status: number | undefined;
  /** The row's create_time, in seconds since 1970 (the column's precision). */
  createTime: number;
  id: number;
}

const VERSION = 1;
const EVERY_STATUS = 255;
const POSITION_BYTES = 10;
const MAC_BYTES = 16;

const macOf = (secret: Buffer, position: Buffer) =>
  createHmac('sha256', secret).update(position).digest().subarray(0, MAC_BYTES);

/**
 * The cursor a client sends back for the next page: the position and an HMAC
 * of it, in base64url (letters, digits, - and _). The client cannot read or
 * change it: every instance on the database shares the secret.
 */
export function encodeCursor(secret: Buffer, { status, createTime, id }: WalkPosition): string {
  const position = Buffer.alloc(POSITION_BYTES);
  position.writeUInt8(VERSION, 0);
  position.writeUInt8(status ?? EVERY_STATUS, 1);
  position.writeUInt32BE(createTime, 2);
  position.writeUInt32BE(id, 6);
  return Buffer.concat([position, macOf(secret, position)]).toString('base64url');
}

/** The position a cursor names; undefined when it is not one this service made, unaltered. */
export function decodeCursor(secret: Buffer, cursor: string): WalkPosition | undefined {
  const bytes = Buffer.from(cursor, 'base64url');
  // The decoder skips stray characters and spare bits: only the text it would write is the cursor.
  if (bytes.length !== POSITION_BYTES + MAC_BYTES || bytes.toString('base64url') !== cursor) {
    return undefined;
  }
  const position = bytes.subarray(0, POSITION_BYTES);
  if (!timingSafeEqual(macOf(secret, position), bytes.subarray(POSITION_BYTES))) return undefined;
  if (position.readUInt8(0) !== VERSION) return undefined;
  const status = position.readUInt8(1);
  return {
    status: status === EVERY_STATUS ? undefined : status,
    createTime: position.readUInt32BE(2),
    id: position.readUInt32BE(6),
  };
}
