/**
 * The one place that reaches past mysql2's typed API: the callback pool behind
 * the promise pool, a connection's socket, and the pool's counts, which no
 * public call gives (mysql-statement.ts runs statements on what it hands out).
 * test/mysql-driver.test.ts fails when an installed mysql2 changes any of them.
 */
import type { Socket } from 'node:net';
import type { PoolConnection } from 'mysql2';
import type { Pool } from 'mysql2/promise';

export type { PoolConnection } from 'mysql2';

/** The pool's own fields behind its connection counts (mysql2's ring queues). */
interface PoolInternals {
  _allConnections: { length: number };
  _freeConnections: { length: number };
  _connectionQueue: { length: number };
}

const socketOf = (conn: PoolConnection) => (conn as unknown as { stream: Socket }).stream;

/**
 * A connection of the pool on the driver's callback API: the one a streamed
 * query needs, and cheaper than the promise wrapper, which captures a stack
 * trace per call. The caller releases or destroys it.
 */
export function connectionOf(pool: Pool): Promise<PoolConnection> {
  return new Promise((resolve, reject) =>
    pool.pool.getConnection((err, conn) => (err ? reject(err) : resolve(conn))),
  );
}

/**
 * Drops a connection the server may still be writing to. The driver's own
 * destroy() only half-closes the socket (end()), and a connection whose result
 * is paused never reads the rest: the server would keep it busy ("Writing to
 * net") until net_write_timeout. Destroying the socket closes it at once, and
 * the pool opens a fresh one when needed.
 */
export function destroyConnection(conn: PoolConnection): void {
  conn.destroy();
  socketOf(conn).destroy();
}

/** False once the connection was destroyed (after a timeout or a fatal error). */
export function isUsable(conn: PoolConnection): boolean {
  return !socketOf(conn).destroyed;
}

/** The pool's connections: open, free among them, and requests queued for one. */
export function poolCounts(pool: Pool): { all: number; free: number; queued: number } {
  const internals = pool.pool as unknown as PoolInternals;
  return {
    all: internals._allConnections.length,
    free: internals._freeConnections.length,
    queued: internals._connectionQueue.length,
  };
}

/** How many connections the pool opens at most: how many statements can run at once. */
export function poolSize(pool: Pool): number {
  return pool.pool.config.connectionLimit ?? 10;
}
