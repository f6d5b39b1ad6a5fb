import { createHash } from 'node:crypto';

/** A stored password hash's SHA-256: a challenge keeps it, so a password changed since ends the challenge. */
export const hashPrintOf = (storedHash: string) =>
  createHash('sha256').update(storedHash).digest('base64url');
