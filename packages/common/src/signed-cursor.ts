import { createHmac, timingSafeEqual } from 'node:crypto';

const MAC_BYTES = 16;

const macOf = (secret: Buffer, position: Buffer) =>
  createHmac('sha256', secret).update(position).digest().subarray(0, MAC_BYTES);

/**
 * A cursor a client hands back for the next page: the position's bytes and an
 * HMAC of them, in base64url (letters, digits, - and _). The client cannot
 * change it, and every instance that shares the secret reads it.
 */
export function signCursor(secret: Buffer, position: Buffer): string {
  return Buffer.concat([position, macOf(secret, position)]).toString('base64url');
}

/** The position's bytes of a cursor signCursor made with this secret, unaltered; else undefined. */
export function openCursor(
  secret: Buffer,
  cursor: string,
  positionBytes: number,
): Buffer | undefined {
  const bytes = Buffer.from(cursor, 'base64url');
  // The decoder skips stray characters and spare bits: only the text it would write is the cursor.
  if (bytes.length !== positionBytes + MAC_BYTES || bytes.toString('base64url') !== cursor) {
    return undefined;
  }
  const position = bytes.subarray(0, positionBytes);
  return timingSafeEqual(macOf(secret, position), bytes.subarray(positionBytes))
    ? position
    : undefined;
}
