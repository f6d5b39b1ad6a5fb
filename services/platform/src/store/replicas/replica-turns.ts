/** A replica that failed is tried again after this long, so it is back within 10 s of its return. */
const DOWN_MS = 3000;

/**
 * The replicas in turn, so reads spread over them, without those resting
 * after a failure. `rested` is told of each replica that begins a rest.
 */
export function replicaTurns<T>(servers: T[], rested: (server: T) => void) {
  const downUntil = new Map<T, number>();
  let turn = 0;
  return {
    /** The replicas that are not resting, from the next one in turn. */
    next(): T[] {
      turn = (turn + 1) % servers.length;
      const now = Date.now();
      return servers
        .map((_server, i) => servers[(turn + i) % servers.length] as T)
        .filter((server) => (downUntil.get(server) ?? 0) <= now);
    },
    /** A replica out of reach rests for DOWN_MS. */
    rest(server: T): void {
      downUntil.set(server, Date.now() + DOWN_MS);
      rested(server);
    },
  };
}
