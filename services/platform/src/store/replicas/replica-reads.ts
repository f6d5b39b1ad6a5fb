import {
  createDatabase,
  type Database,
  type HeldConnection,
  type Pool,
  type Statement,
  StoreUnavailableError,
} from '@svc/common';
import { sharedRead } from '../shared-read.js';
import type { GtidStatements } from './gtid.js';
import { replicaTurns } from './replica-turns.js';

interface ReplicaReadOptions {
  primary: Database;
  /** A database on the primary of its own, for position reads: writes never queue ahead of them. */
  positions: Database;
  /** The replicas' pools, in MYSQL_REPLICA_HOSTS order. */
  replicas: Pool[];
  gtid: GtidStatements;
  /** REPLICA_WAIT_MS */
  waitMs: number;
  queryTimeoutMs: number;
}

/** Where list reads went, since the start. */
type ReadTargets = Record<'replica' | 'primary', number>;

/**
 * A Database whose reads run on a replica once it has applied every write the
 * primary had logged when the read began, so a list shows every write any
 * instance had answered before it arrived. The wait is bounded by `waitMs`;
 * a replica still behind then, or down, leaves the read to the next replica,
 * and the primary when none is left. With the primary down, reads go to a
 * replica without waiting: there are no new writes to wait for.
 */
export function replicaReads(options: ReplicaReadOptions) {
  const { primary, replicas, gtid, waitMs, queryTimeoutMs } = options;
  /** The primary's position as last read. */
  let latest: string | undefined;
  const readPosition = sharedRead(async () => {
    const [row] = await options.positions.select<{ position: string }>(gtid.position);
    latest = row?.position ?? '';
    return latest;
  });
  /**
   * The last position each replica was seen to have applied. A replica only
   * moves forward while it runs; one that failed, or that its pool opened a
   * new connection to (it may have restarted from other data), forgets it.
   */
  const reached = new Map<Database, string>();
  const servers = replicas.map((pool) => {
    const replica = createDatabase(pool, queryTimeoutMs);
    pool.on('connection', () => reached.delete(replica));
    return replica;
  });
  // A replica that rests forgets where it was.
  const turns = replicaTurns(servers, (replica) => reached.delete(replica));
  const targets: ReadTargets = { replica: 0, primary: 0 };

  /** The primary's position; undefined when the primary does not answer. */
  async function position(): Promise<string | undefined> {
    try {
      return await readPosition();
    } catch (err) {
      if (err instanceof StoreUnavailableError) return undefined;
      throw err;
    }
  }

  /**
   * `work` on a connection of the first replica that answers: a replica out
   * of reach rests and the next is tried, as is the next when
   * `work` gives up on the connection (which it then released). Undefined
   * when no replica is left.
   */
  async function onReplica<R>(
    work: (conn: HeldConnection, replica: Database) => Promise<R | undefined>,
  ): Promise<R | undefined> {
    for (const replica of turns.next()) {
      let conn: HeldConnection | undefined;
      try {
        conn = await replica.hold();
        const result = await work(conn, replica);
        if (result !== undefined) return result;
      } catch (err) {
        conn?.drop();
        if (!(err instanceof StoreUnavailableError)) throw err;
        turns.rest(replica);
      }
    }
    return undefined;
  }

  /**
   * `use` on a replica connection once the replica has applied `upTo` (at
   * once when undefined, or when it was seen there), waited for at most
   * waitMs on each replica in turn; undefined when no replica has.
   */
  const whenCaughtUp = <R>(
    upTo: string | undefined,
    use: (conn: HeldConnection, replica: Database) => Promise<R>,
  ) =>
    onReplica(async (conn, replica) => {
      if (upTo !== undefined && reached.get(replica) !== upTo) {
        // The wait is bounded by waitMs on the server: the query's own bound comes on top.
        const [wait] = await conn.select<{ code: number | null }>(
          gtid.wait,
          [upTo, waitMs / 1000],
          { timeoutMs: waitMs + queryTimeoutMs },
        );
        if (wait?.code !== 0) {
          conn.release();
          return undefined;
        }
        reached.set(replica, upTo);
      }
      return use(conn, replica);
    });

  /** The primary's answer, counted. */
  const onPrimary = <T>(read: () => Promise<T>) => {
    targets.primary++;
    return read();
  };

  const reads: Database = {
    ...primary,
    /**
     * A replica seen at the primary's last known position runs the statement
     * at once, while the primary's position is read: if it is still the same,
     * the rows hold every write answered before the call, at the cost of one
     * statement on the replica, in the time of the longer of the two reads.
     * Otherwise the replica is waited for (the early rows are dropped), or
     * the primary answers.
     */
    async select<T>(
      sql: string,
      values: unknown[] = [],
      { rowsAsArray = false }: { rowsAsArray?: boolean } = {},
    ) {
      const run = async (conn: HeldConnection) => {
        const rows = await conn.select<T>(sql, values, { rowsAsArray });
        conn.release();
        return { rows };
      };
      const expected = latest;
      // Never rejects: its failure is thrown below if its rows are wanted, and dropped if not.
      const early = onReplica(async (conn, replica): Promise<{ rows?: T[] }> => {
        if (expected === undefined || reached.get(replica) !== expected) {
          conn.release();
          return {};
        }
        return run(conn);
      }).catch((error: unknown) => ({ error }));
      const upTo = await position();
      const first = upTo === undefined || upTo === expected ? await early : {};
      if (first && 'error' in first) throw first.error;
      const rows = first && (first.rows ?? (await whenCaughtUp(upTo, run))?.rows);
      if (!rows) return onPrimary(() => primary.select<T>(sql, values, { rowsAsArray }));
      targets.replica++;
      return rows;
    },
    /**
     * A snapshot streams from its connection: the replica is waited for
     * first. A read that fails there before it answers (the replica went
     * away, or broke, after its wait) is read from the primary instead.
     */
    async lookupThenStream<L, R>(lookup: Statement, list: Statement) {
      const caughtUp = await whenCaughtUp(await position(), async (conn, replica) => ({
        conn,
        replica,
      }));
      if (caughtUp) {
        const { conn, replica } = caughtUp;
        try {
          const answer = await conn.lookupThenStream<L, R>(lookup, list);
          targets.replica++;
          return answer;
        } catch (err) {
          // The stream dropped the connection.
          if (err instanceof StoreUnavailableError) turns.rest(replica);
        }
      }
      return onPrimary(() => primary.lookupThenStream<L, R>(lookup, list));
    },
  };
  return { reads, targets };
}
