import { createDatabase, type Pool } from '@svc/common';

/** A scrape waits no longer than this for a replica's status. */
const STATUS_TIMEOUT_MS = 1000;

type ReplicaStatus = {
  Seconds_Behind_Master?: number | null;
  Seconds_Behind_Source?: number | null;
};

/**
 * How far the replica's data trails the primary's, in seconds, as the replica
 * reports it (MariaDB names the field Seconds_Behind_Master, MySQL 8
 * Seconds_Behind_Source): Infinity while it applies nothing (replication
 * stopped or broken), undefined when it does not answer.
 */
export function replicaDelay(pool: Pool): () => Promise<number | undefined> {
  const db = createDatabase(pool, STATUS_TIMEOUT_MS);
  return async () => {
    try {
      const [status] = await db.select<ReplicaStatus>('SHOW REPLICA STATUS');
      const seconds = status?.Seconds_Behind_Master ?? status?.Seconds_Behind_Source;
      return seconds === null || seconds === undefined ? Number.POSITIVE_INFINITY : Number(seconds);
    } catch {
      return undefined;
    }
  };
}
