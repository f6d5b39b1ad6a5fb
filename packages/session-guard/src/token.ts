import * as crypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';

/** How tokens are made and kept: see the README's "Key layout". */
export type TokenScheme = 'random' | 'md5';

const RANDOM_TOKEN = /^[0-9a-f]{64}$/;
const MD5_TOKEN = /^[0-9a-f]{32}$/;

/** 32 random bytes, hex: the token of the `random` scheme. */
export function randomToken(): string {
  return randomBytes(32).toString('hex');
}

/** The old system's token: hex MD5 of the username followed directly by the password. */
export function md5Token(username: string, password: string): string {
  return md5Hex(username + password);
}

export function md5Hex(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/**
 * One call where Node has it (20.12 and later): a guard hashes every token it
 * checks, and the one-shot hash costs a third less than createHash's three calls.
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string) => string }).hash;

export function sha256Hex(text: string): string {
  return oneShot
    ? oneShot('sha256', text)
    : createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Whether a token could have been issued under the scheme. Anything else can
 * never name a session, so it is refused before it reaches Redis: in `md5` mode
 * the key is the bare token, and a token such as `bull:judge:id` must not be
 * read as a session key.
 */
export function isWellFormedToken(scheme: TokenScheme, token: string): boolean {
  return (scheme === 'md5' ? MD5_TOKEN : RANDOM_TOKEN).test(token);
}
