import type { Database } from '@svc/common';

/** The secrets the migrations made: each signs what clients hand back. */
type SecretName = 'device' | 'events-cursor';

/**
 * Secrets in MySQL (`auth_secrets`), which every instance on the database
 * shares; each is read once, and read again after a failed read.
 */
export function secretRepository(db: Database) {
  const read = new Map<SecretName, Promise<Buffer>>();
  return {
    secret(name: SecretName): Promise<Buffer> {
      let secret = read.get(name);
      if (!secret) {
        secret = db
          .select<{ secret: Buffer }>('SELECT secret FROM auth_secrets WHERE name = ?', [name])
          .then(([row]) => {
            if (!row) throw new Error(`auth_secrets has no '${name}' secret: run the migrations`);
            return row.secret;
          });
        secret.catch(() => read.delete(name));
        read.set(name, secret);
      }
      return secret;
    },
  };
}

export type SecretRepository = ReturnType<typeof secretRepository>;
