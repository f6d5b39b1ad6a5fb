import { randomBytes } from 'node:crypto';
import type { PlatformDatabase } from '../db/database.js';

const SECRET_BYTES = 32;

/**
 * The secret that signs the order list's cursors, which every instance on the
 * database shares, read once per process. The first instance that needs it
 * makes one at random and writes it; INSERT IGNORE keeps whichever was written
 * first when instances start together, and every instance then signs with
 * that one. Both statements go to the primary: a replica may not have it yet.
 */
export function cursorSecret(db: PlatformDatabase): () => Promise<Buffer> {
  let secret: Promise<Buffer> | undefined;

  async function writtenOnce(): Promise<Buffer> {
    const made = randomBytes(SECRET_BYTES);
    const written = await db.update(
      "INSERT IGNORE INTO platform_secrets (name, secret) VALUES ('cursor', ?)",
      [made],
    );
    if (written === 1) return made;
    const [row] = await db.select<{ secret: Buffer }>(
      "SELECT secret FROM platform_secrets WHERE name = 'cursor'",
    );
    if (!row) throw new Error('platform_secrets kept no cursor secret');
    return row.secret;
  }

  return () => {
    secret ??= writtenOnce().catch((err: unknown) => {
      secret = undefined;
      throw err;
    });
    return secret;
  };
}
