import { type Database, sharedSecrets } from '@svc/common';

/** The secrets that sign what clients hand back, in `auth_secrets` (see common's sharedSecrets). */
type SecretName = 'device' | 'events-cursor';

export function secretRepository(db: Database) {
  const table = {
    select: <T>(sql: string, values: unknown[]) => db.select<T>(sql, values),
    update: async (sql: string, values: unknown[]) => (await db.write(sql, values)).affectedRows,
  };
  return { secret: sharedSecrets<SecretName>(table, 'auth_secrets') };
}

export type SecretRepository = ReturnType<typeof secretRepository>;
