import {
  createDatabase,
  type Database,
  destroyConnection,
  type Pool,
  StoreUnavailableError,
  storeFailure,
} from '@svc/common';
import type { GtidStatements } from './gtid.js';
import { type HeldConnection, statementOn } from './held-connection.js';
import { sharedRead } from './shared-read.js';

/** A replica that failed is tried again after this long, so it is back within 10 s of its return. */
const DOWN_MS = 3000;

interface Replica {
  /** `host:port`, as MYSQL_REPLICA_HOSTS names it. */
  name: string;
  pool: Pool;
}

interface ReplicaReadOptions {
  primary: Database;
  /** A database on the primary of its own, for position reads: writes never queue ahead of them. */
  positions: Database;
  replicas: Replica[];
  gtid: GtidStatements;
  /** REPLICA_WAIT_MS */
  waitMs: number;
  queryTimeoutMs: number;
}

/** Where list reads went, since the start. */
type ReadTargets = Record<'replica' | 'primary', number>;

const isUnavailable = (err: unknown) => storeFailure(err) instanceof StoreUnavailableError;

/**
 * A Database whose reads run on a replica once it has applied every write the
 * primary had logged when the read began, so a list shows every write any
 * instance had answered before it arrived. The wait is bounded by `waitMs`;
 * a replica still behind then, or down, leaves the read to the primary (or
 * to the next replica, when down). With the primary down, reads go to a
 * replica without waiting: there are no new writes to wait for.
 */
export function replicaReads(options: ReplicaReadOptions) {
  const { primary, replicas, gtid, waitMs, queryTimeoutMs } = options;
  const readPosition = sharedRead(async () => {
    const [row] = await options.positions.select<{ position: string }>(gtid.position);
    return row?.position ?? '';
  });
  const servers = replicas.map((replica) => createDatabase(replica.pool, queryTimeoutMs));
  const downUntil = new Map<Database, number>();
  /**
   * The last position each replica was seen to have applied: while the
   * primary's stays the same (reads without writes between them), no wait is
   * needed. A replica may restart from older data, so one that failed forgets it.
   */
  const reached = new Map<Database, string>();
  const targets: ReadTargets = { replica: 0, primary: 0 };
  let turn = 0;

  /** The primary's position; undefined when the primary does not answer. */
  async function position(): Promise<string | undefined> {
    try {
      return await readPosition();
    } catch (err) {
      if (err instanceof StoreUnavailableError) return undefined;
      throw err;
    }
  }

  const markDown = (replica: Database) => {
    downUntil.set(replica, Date.now() + DOWN_MS);
    reached.delete(replica);
  };

  /**
   * A connection of a replica up to `upTo` (any replica, when undefined);
   * none when no replica is. With `known`, a replica already seen at `upTo`
   * is taken without a wait, which also tells whether it still answers; the
   * caller then falls back itself when it does not.
   */
  async function replicaConnection(upTo: string | undefined, known: boolean) {
    turn = (turn + 1) % servers.length;
    for (let i = 0; i < servers.length; i++) {
      const replica = servers[(turn + i) % servers.length] as Database;
      if ((downUntil.get(replica) ?? 0) > Date.now()) continue;
      let conn: HeldConnection | undefined;
      try {
        conn = await replica.connection();
        if (upTo === undefined || (known && reached.get(replica) === upTo)) {
          return { conn, replica };
        }
        const [wait] = await statementOn<{ code: number | null }[]>(
          conn,
          queryTimeoutMs,
          gtid.wait,
          [upTo, waitMs / 1000],
        );
        if (wait?.code === 0) {
          reached.set(replica, upTo);
          return { conn, replica };
        }
        conn.release();
        return undefined;
      } catch (err) {
        if (conn) destroyConnection(conn);
        if (!isUnavailable(err)) throw storeFailure(err);
        markDown(replica);
      }
    }
    return undefined;
  }

  /** The primary's answer, counted. */
  const onPrimary = <T>(read: () => Promise<T>) => {
    targets.primary++;
    return read();
  };

  const reads: Database = {
    async select<T>(
      sql: string,
      values: unknown[] = [],
      selectOptions: { rowsAsArray?: boolean } = {},
    ) {
      const onPrimarySelect = () => onPrimary(() => primary.select<T>(sql, values, selectOptions));
      const found = await replicaConnection(await position(), true);
      if (!found) return onPrimarySelect();
      const { conn, replica } = found;
      try {
        const rows = await statementOn<T[]>(
          conn,
          queryTimeoutMs,
          sql,
          values,
          selectOptions.rowsAsArray,
        );
        conn.release();
        targets.replica++;
        return rows;
      } catch (err) {
        destroyConnection(conn);
        if (!isUnavailable(err)) throw storeFailure(err);
        markDown(replica);
        return onPrimarySelect();
      }
    },
    // A snapshot's first statement is no place to find the replica gone: it always waits first.
    async connection() {
      const found = await replicaConnection(await position(), false);
      if (!found) return onPrimary(primary.connection);
      targets.replica++;
      return found.conn;
    },
    write: primary.write,
    transaction: primary.transaction,
    connections: primary.connections,
  };
  return { reads, targets };
}
