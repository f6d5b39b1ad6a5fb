import { RECOVERY_CODE, recoveryCodeHash } from './recovery-codes.js';
import { stepOfCode } from './totp.js';
import type { Proof } from './two-factor.repository.js';

/** A TOTP code as typed: six digits. */
const TOTP_CODE = /^\d{6}$/;

/**
 * What `code` proves for `secret` before anything is written: a TOTP code of
 * a step within the window, or something shaped as a recovery code (whether
 * it is one of the user's, and unspent, is for the write that spends it);
 * undefined when it proves nothing.
 */
export function proofOf(secret: Buffer, code: string, now = Date.now()): Proof | undefined {
  const trimmed = code.trim();
  if (TOTP_CODE.test(trimmed)) {
    const step = stepOfCode(secret, trimmed, now);
    return step === undefined ? undefined : { step };
  }
  if (RECOVERY_CODE.test(trimmed)) return { recoveryHash: recoveryCodeHash(trimmed) };
  return undefined;
}
