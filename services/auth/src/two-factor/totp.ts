import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

/** Who the authenticator app names as the account's issuer. */
const ISSUER = 'Judge';
/** RFC 6238 as every authenticator app takes it: SHA-1, 6 digits, 30 s. */
const PARAMETERS = { issuer: ISSUER, algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** A code of the step before or after the current one is taken too: clocks drift, people type slowly. */
const WINDOW = 1;
/** 160 bits, RFC 4226's recommended key size for HMAC-SHA-1. */
const SECRET_BYTES = 20;

const totpOf = (secret: Buffer, username = '') =>
  new TOTP({ ...PARAMETERS, label: username, secret: Secret.fromHex(secret.toString('hex')) });

/** A new secret's bytes, as user_totp keeps them. */
export function newTotpSecret(): Buffer {
  return Buffer.from(new Secret({ size: SECRET_BYTES }).bytes);
}

/** What setup shows: the secret in base32, its otpauth:// URI, and the URI as a QR code in SVG. */
export async function enrolmentOf(secret: Buffer, username: string) {
  const totp = totpOf(secret, username);
  const uri = totp.toString();
  const qrCode = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M' });
  return { secret: totp.secret.base32, uri, qrCode };
}

/** The 30-second step whose code `code` is, within WINDOW of now's; undefined when none is. */
export function stepOfCode(secret: Buffer, code: string, now = Date.now()): number | undefined {
  const totp = totpOf(secret);
  const delta = totp.validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? undefined : totp.counter({ timestamp: now }) + delta;
}
