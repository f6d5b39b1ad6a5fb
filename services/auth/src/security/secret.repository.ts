import { type Database, sharedSecrets } from '@svc/common';

/** The secrets that sign what clients hand back, in `auth_secrets` (see common's sharedSecrets). */
type SecretName = 'device' | 'events-cursor';

export function secretRepository(db: Database) {
  return { secret: sharedSecrets<SecretName>(db, 'auth_secrets') };
}

export type SecretRepository = ReturnType<typeof secretRepository>;
