import { randomBytes } from 'node:crypto';
import type { Database } from './mysql-database.js';

const SECRET_BYTES = 32;

/**
 * Secrets kept in a MySQL table of `(name, secret)`, which every instance on
 * the database shares, each read once per process. The first instance that
 * needs one makes it at random and writes it; INSERT IGNORE keeps whichever
 * was written first when instances start together, and every instance then
 * signs with that one. Both statements go to the primary (a replica may not
 * have it yet). A failed read is tried again by the next caller.
 */
export function sharedSecrets<Name extends string>(
  db: Pick<Database, 'select' | 'update'>,
  table: string,
): (name: Name) => Promise<Buffer> {
  const read = new Map<Name, Promise<Buffer>>();

  async function writtenOnce(name: Name): Promise<Buffer> {
    const made = randomBytes(SECRET_BYTES);
    const written = await db.update(`INSERT IGNORE INTO ${table} (name, secret) VALUES (?, ?)`, [
      name,
      made,
    ]);
    if (written === 1) return made;
    const [row] = await db.select<{ secret: Buffer }>(
      `SELECT secret FROM ${table} WHERE name = ?`,
      [name],
    );
    if (!row) throw new Error(`${table} kept no '${name}' secret`);
    return row.secret;
  }

  return (name) => {
    let secret = read.get(name);
    if (!secret) {
      secret = writtenOnce(name);
      secret.catch(() => read.delete(name));
      read.set(name, secret);
    }
    return secret;
  };
}
