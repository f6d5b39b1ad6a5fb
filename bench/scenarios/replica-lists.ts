import { join } from 'node:path';
import { mysqlVariables, startMariaDbReplication } from '@svc/test-kit';
import { mysqldCpu } from '../lib/mysqld.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import { repoRoot, startServer } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { inTurns, pairedCpuRatio, pairedRatio } from '../lib/turns.js';
import { ensureData, measure, orderListPage, wholeOrderList } from './platform-lists.js';

const ORDERS = 100_000;
const DATABASE = `bench_replica_${ORDERS}`;

const cases = [orderListPage, wholeOrderList];

/** With a replica, the lists answer at least this share of their throughput on the primary alone. */
const TARGET = 0.9;

/**
 * The order lists with MYSQL_REPLICA_HOSTS against the same lists on the
 * primary alone: a MariaDB primary and a GTID replica of its own on loopback
 * (the test kit's), both on this machine's cores with the service. The
 * primary's CPU per list read is measured from /proc of its mysqld.
 */
export async function replicaLists(settings: BenchSettings): Promise<ResultRow[]> {
  progress('replica: starting a MariaDB primary and replica');
  const replication = await startMariaDbReplication();
  const rows: ResultRow[] = [];
  try {
    const { database: _none, ...primary } = replication.primary.settings(DATABASE);
    await ensureData(primary, DATABASE, ORDERS);
    await replication.replicaCaughtUp(120_000);
    const env = mysqlVariables({ ...primary, database: DATABASE });
    const script = join(repoRoot, 'services/platform/dist/main.js');
    const alone = await startServer({ script, env });
    const withReplica = await startServer({
      script,
      env: { ...env, MYSQL_REPLICA_HOSTS: `127.0.0.1:${replication.replica.port}` },
    });
    const primaryCpu = await mysqldCpu(primary);
    try {
      for (const c of cases) {
        progress(`replica: ${c.name}`);
        const [base, mine] = await inTurns(settings.quick ? 1 : 3, [
          () => measure(alone, c, settings, primaryCpu),
          () => measure(withReplica, c, settings, primaryCpu),
        ]);
        if (!base || !mine) throw new Error(`${c.name}: measurements missing`);
        rows.push(
          row({
            scenario: `replica: ${c.name}`,
            config: 'MYSQL_REPLICA_HOSTS=one local replica, REPLICA_WAIT_MS=100',
            rps: mine.rps,
            p50_ms: mine.p50,
            p99_ms: mine.p99,
            rss_mb: mine.rss,
            baseline: 'the same lists on the primary alone',
            baseline_rps: base.rps,
            ratio: pairedRatio(mine, base),
            // db: the primary's CPU per list read, with the replica and without.
            cpu: {
              ours: mine.cpuUs ?? 0,
              baseline: base.cpuUs ?? 0,
              db: mine.dbCpuUs ?? 0,
              baselineDb: base.dbCpuUs ?? 0,
            },
            cpu_ratio: pairedCpuRatio(mine, base),
            target: `>= ${TARGET}x rps; primary cpu/req falls`,
            goal: { ratioAtLeast: TARGET },
          }),
        );
        progress(
          `  with replica ${mine.rps.toFixed(0)} rps (p50 ${mine.p50.toFixed(1)} ms, primary ${mine.dbCpuUs?.toFixed(0)} us/req) vs primary alone ${base.rps.toFixed(0)} rps (p50 ${base.p50.toFixed(1)} ms, primary ${base.dbCpuUs?.toFixed(0)} us/req)`,
        );
      }
    } finally {
      await Promise.all([alone.stop(), withReplica.stop()]);
    }
  } finally {
    await replication.stop();
  }
  return rows;
}
