import { RECOVERY_CODE, recoveryCodeHash } from './recovery-codes.js';
import { stepOfCode } from './totp.js';
import type { Proof, UserTotp } from './two-factor.repository.js';

/** A TOTP code as typed: six digits. */
const TOTP_CODE = /^\d{6}$/;

/**
 * What `code` proves for `totp` before anything is written: a TOTP code of a
 * step within the window and after the last one used (as read: the write
 * that spends it decides between requests racing), or something shaped as a
 * recovery code (whether it is one of the user's, and unspent, is for that
 * write too); undefined when it proves nothing, so no session is opened for it.
 */
export function proofOf(totp: UserTotp, code: string, now = Date.now()): Proof | undefined {
  const trimmed = code.trim();
  if (TOTP_CODE.test(trimmed)) {
    const step = stepOfCode(totp.secret, trimmed, now);
    return step === undefined || step <= totp.lastStep ? undefined : { step };
  }
  if (RECOVERY_CODE.test(trimmed)) return { recoveryHash: recoveryCodeHash(trimmed) };
  return undefined;
}
