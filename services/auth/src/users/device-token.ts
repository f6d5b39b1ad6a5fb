import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The header a login brings its device token back in. */
export const DEVICE_TOKEN_HEADER = 'x-device-token';

/**
 * A device token names one user and one device of theirs, signed by the
 * service: `version (1) | user id (4) | device id (16) | HMAC-SHA256 (16)`,
 * in base64url. The secret is shared by every instance on the database, so a
 * token made by one is good on all of them. The client cannot read a secret
 * from it or change it: a token not made by this service, unaltered, names
 * nothing.
 */
const VERSION = 1;
const USER_ID_BYTES = 4;
const DEVICE_ID_BYTES = 16;
const MAC_BYTES = 16;
const SIGNED_BYTES = 1 + USER_ID_BYTES + DEVICE_ID_BYTES;
const TOKEN_BYTES = SIGNED_BYTES + MAC_BYTES;
/** The text of a token: base64url of TOKEN_BYTES, nothing else. */
const TOKEN_TEXT = new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((TOKEN_BYTES * 4) / 3)}}$`);

const macOf = (secret: Buffer, signed: Buffer) =>
  createHmac('sha256', secret).update(signed).digest().subarray(0, MAC_BYTES);

/** The token of a new device of this user. */
export function newDeviceToken(secret: Buffer, userId: number): string {
  const signed = Buffer.alloc(SIGNED_BYTES);
  signed.writeUInt8(VERSION, 0);
  signed.writeUInt32BE(userId, 1);
  randomBytes(DEVICE_ID_BYTES).copy(signed, 1 + USER_ID_BYTES);
  return Buffer.concat([signed, macOf(secret, signed)]).toString('base64url');
}

/**
 * The device id of a token this service made for the user `userId`; undefined
 * for anything else (forged, altered, another user's, or no user at all). The
 * signature is checked whoever the user is, so the time taken tells nothing.
 */
export function deviceOf(
  secret: Buffer,
  token: string | undefined,
  userId: number | undefined,
): string | undefined {
  if (token === undefined || !TOKEN_TEXT.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  // The decoder skips spare bits: only the text it would write is the token.
  if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== token) return undefined;
  const signed = bytes.subarray(0, SIGNED_BYTES);
  const genuine = timingSafeEqual(macOf(secret, signed), bytes.subarray(SIGNED_BYTES));
  if (!genuine || signed.readUInt8(0) !== VERSION) return undefined;
  return signed.readUInt32BE(1) === userId ? deviceIdOf(signed) : undefined;
}

const deviceIdOf = (signed: Buffer) => signed.subarray(1 + USER_ID_BYTES).toString('base64url');
