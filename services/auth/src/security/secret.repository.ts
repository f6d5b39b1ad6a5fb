import { randomBytes } from 'node:crypto';
import type { Database } from '@svc/common';

/** The secrets that sign what clients hand back. */
type SecretName = 'device' | 'events-cursor';

const SECRET_BYTES = 32;

/**
 * Secrets in MySQL (`auth_secrets`), which every instance on the database
 * shares, each read once per process. The first instance that needs one makes
 * it at random and writes it; INSERT IGNORE keeps whichever was written first
 * when instances start together, and every instance then signs with that one.
 * A failed read is tried again by the next caller.
 */
export function secretRepository(db: Database) {
  const read = new Map<SecretName, Promise<Buffer>>();

  async function writtenOnce(name: SecretName): Promise<Buffer> {
    const made = randomBytes(SECRET_BYTES);
    const { affectedRows } = await db.write(
      'INSERT IGNORE INTO auth_secrets (name, secret) VALUES (?, ?)',
      [name, made],
    );
    if (affectedRows === 1) return made;
    const [row] = await db.select<{ secret: Buffer }>(
      'SELECT secret FROM auth_secrets WHERE name = ?',
      [name],
    );
    if (!row) throw new Error(`auth_secrets kept no '${name}' secret`);
    return row.secret;
  }

  return {
    secret(name: SecretName): Promise<Buffer> {
      let secret = read.get(name);
      if (!secret) {
        secret = writtenOnce(name);
        secret.catch(() => read.delete(name));
        read.set(name, secret);
      }
      return secret;
    },
  };
}

export type SecretRepository = ReturnType<typeof secretRepository>;
