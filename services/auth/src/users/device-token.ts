import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The header a login brings its device token back in. */
export const DEVICE_TOKEN_HEADER = 'x-device-token';

/**
 * A device token names one user and one device of theirs, signed by the
 * service: `version | user id (4) | device id (16) | HMAC-SHA256 (16)`, in
 * base64url. Version 2 signs the user's stored password hash too, so a new
 * password (changed, reset, or rehashed) ends every token made before it.
 * Version 1, from before, names no password: it is good only while the user
 * has no recorded password change. The secret is shared by every instance on
 * the database, so a token made by one is good on all of them. The client
 * cannot read a secret from it or change it: a token not made by this
 * service, unaltered, names nothing.
 */
const UNBOUND = 1;
const VERSION = 2;
const USER_ID_BYTES = 4;
const DEVICE_ID_BYTES = 16;
const MAC_BYTES = 16;
const SIGNED_BYTES = 1 + USER_ID_BYTES + DEVICE_ID_BYTES;
const TOKEN_BYTES = SIGNED_BYTES + MAC_BYTES;
/** The text of a token: base64url of TOKEN_BYTES, nothing else. */
const TOKEN_TEXT = new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((TOKEN_BYTES * 4) / 3)}}$`);
/** Stands in for the hash of a user that does not exist: the same work either way. */
const NO_HASH = 'scrypt$0$0$0$no-user$no-user';

/** What a token is checked against: the user as the login read them. */
interface DeviceOwner {
  id: number;
  password: string;
  passwordChangedAt: Date | null;
}

const macOf = (secret: Buffer, signed: Buffer, passwordHash?: string) => {
  const hmac = createHmac('sha256', secret).update(signed);
  if (passwordHash !== undefined) hmac.update(passwordHash, 'utf8');
  return hmac.digest().subarray(0, MAC_BYTES);
};

/** The token of this user's device `deviceId` (a new device when none), under the stored hash. */
export function deviceTokenOf(
  secret: Buffer,
  user: Pick<DeviceOwner, 'id' | 'password'>,
  deviceId?: string,
): string {
  const signed = Buffer.alloc(SIGNED_BYTES);
  signed.writeUInt8(VERSION, 0);
  signed.writeUInt32BE(user.id, 1);
  const device = deviceId === undefined ? randomBytes(DEVICE_ID_BYTES) : deviceIdBytes(deviceId);
  device.copy(signed, 1 + USER_ID_BYTES);
  return Buffer.concat([signed, macOf(secret, signed, user.password)]).toString('base64url');
}

/** A new device's id, for a login that came without a valid token. */
export const newDeviceId = () => randomBytes(DEVICE_ID_BYTES).toString('base64url');

/**
 * The device id of a token this service made for `user` under the password it
 * has now; undefined for anything else (forged, altered, another user's, made
 * before a new password, or no user at all). The signature is checked whoever
 * the user is, so the time taken tells nothing.
 */
export function deviceOf(
  secret: Buffer,
  token: string | undefined,
  user: DeviceOwner | undefined,
): string | undefined {
  if (token === undefined || !TOKEN_TEXT.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  // The decoder skips spare bits: only the text it would write is the token.
  if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== token) return undefined;
  const signed = bytes.subarray(0, SIGNED_BYTES);
  const version = signed.readUInt8(0);
  const hash = version === VERSION ? (user?.password ?? NO_HASH) : undefined;
  const genuine = timingSafeEqual(macOf(secret, signed, hash), bytes.subarray(SIGNED_BYTES));
  if (!genuine || !user || signed.readUInt32BE(1) !== user.id) return undefined;
  if (version === VERSION || (version === UNBOUND && user.passwordChangedAt === null)) {
    return signed.subarray(1 + USER_ID_BYTES).toString('base64url');
  }
  return undefined;
}

const deviceIdBytes = (deviceId: string) => Buffer.from(deviceId, 'base64url');
