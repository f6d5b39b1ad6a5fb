import { createHash, randomBytes } from 'node:crypto';

/** How many codes confirm and renew hand out. */
const COUNT = 10;
/** Crockford's base32 letters: no I, L, O or U to misread. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 16 letters of 5 bits: 80 random bits, shown as four groups of four. */
const LETTERS = 16;

/** A recovery code as typed: letters and digits in groups, any case, dashes and spaces optional. */
export const RECOVERY_CODE = /^[0-9A-Za-z]{4}(?:[- ]?[0-9A-Za-z]{4}){3}$/;

function newCode(): string {
  const bytes = randomBytes(LETTERS);
  const letters = [...bytes].map((byte) => ALPHABET[byte % 32]).join('');
  return letters.match(/.{4}/g)?.join('-') ?? letters;
}

/** Ten new codes, as the user is shown them once. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: COUNT }, newCode);
}

/** The code's hash as recovery_codes keeps it: of its letters, upper case, without separators. */
export function recoveryCodeHash(code: string): Buffer {
  const letters = code.replace(/[- ]/g, '').toUpperCase();
  return createHash('sha256').update(letters).digest();
}
