import { sharedSecrets } from '@svc/common';
import type { PlatformDatabase } from '../store/database.js';

/**
 * The secret that signs the order list's cursors, which every instance on the
 * database shares (common's sharedSecrets, in `platform_secrets`); both of its
 * statements go to the primary, where a new secret is written.
 */
export function cursorSecret(db: PlatformDatabase): () => Promise<Buffer> {
  const secrets = sharedSecrets<'cursor'>(db, 'platform_secrets');
  return () => secrets('cursor');
}
