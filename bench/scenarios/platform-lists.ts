import { join } from 'node:path';
import { mysqlVariables } from '@svc/test-kit';
import { load } from '../lib/load.js';
import { mysqldCpu } from '../lib/mysqld.js';
import {
  copyToLegacy,
  holdsData,
  type MysqlServer,
  mysqlServerFrom,
  seed,
  trimOrders,
} from '../lib/platform-data.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import { type RunningServer, repoRoot, spentSince, startServer } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { inTurns, type Measured, pairedCpuRatio, pairedRatio, type Turned } from '../lib/turns.js';

const ORDERS = 100_000;
const OURS = `bench_platform_${ORDERS}`;
const LEGACY = `bench_legacy_${ORDERS}`;

/** Starts the platform service on `database`; its start applies the migrations. */
export function startPlatform(
  server: MysqlServer,
  database: string,
  env: Record<string, string> = {},
) {
  return startServer({
    script: join(repoRoot, 'services/platform/dist/main.js'),
    env: { ...mysqlVariables({ ...server, database }), ...env },
  });
}

/**
 * Makes sure `database` holds the bench data of this size, seeding it when it
 * does not (see seed for `sameSecond`).
 */
export async function ensureData(
  server: MysqlServer,
  database: string,
  orders: number,
  sameSecond = false,
) {
  if (await holdsData(server, database, orders)) {
    progress(`reusing ${database}`);
    return false;
  }
  progress(`seeding ${database} (${orders} orders)`);
  // Starting the service once creates the database and applies the migrations.
  const schema = await startPlatform(server, database);
  await schema.stop();
  await seed(server, database, orders, sameSecond);
  return true;
}

/** Our database and the old server's, each holding the same 100,000 orders. */
export async function ensureBothData(
  server: MysqlServer,
): Promise<{ ours: string; legacy: string }> {
  const seeded = await ensureData(server, OURS, ORDERS);
  if (seeded || !(await holdsData(server, LEGACY, ORDERS))) {
    progress(`copying the data into ${LEGACY} (old schema)`);
    await copyToLegacy(server, OURS, LEGACY);
  }
  return { ours: OURS, legacy: LEGACY };
}

interface Case {
  name: string;
  path: string;
  connections: number;
  /** Seconds at least: the old server needs about one to answer a whole order list. */
  minDuration?: number;
  method?: 'POST';
  body?: string;
  /** Each request with an Idempotency-Key of its own (the old server ignores it). */
  keyed?: true;
  /** At most this share of the old server's CPU per request. */
  maxCpuRatio?: number;
  /** Asked with the If-None-Match of the list's current ETag (a 304); the old server has none, and answers 200. */
  conditional?: true;
  /** At least this many times the old server's throughput (1.2 unless given). */
  target?: number;
}

/** The first page of the status=1 orders (the replica scenario measures it too). */
export const orderListPage: Case = {
  name: 'order list status=1 page 1',
  path: '/api/order/list?status=1&page=1&pageSize=20',
  connections: 8,
  minDuration: 5,
};

/** Every status=1 order, some 33,000 (the replica scenario measures it too). */
export const wholeOrderList: Case = {
  name: 'order list status=1 unpaginated',
  path: '/api/order/list?status=1',
  connections: 4,
  minDuration: 5,
};

const CATEGORY = `/api/service/list?category=${encodeURIComponent('家政')}`;

const cases: Case[] = [
  { name: 'merchant list', path: '/api/merchant/list', connections: 32, target: 2 },
  { name: 'service list', path: '/api/service/list', connections: 32, target: 2 },
  { name: 'service list by category', path: CATEGORY, connections: 32, target: 2 },
  {
    name: 'merchant list, 304 to its ETag',
    path: '/api/merchant/list',
    connections: 32,
    conditional: true,
    target: 5,
  },
  {
    name: 'service list by category, 304 to its ETag',
    path: CATEGORY,
    connections: 32,
    conditional: true,
    target: 5,
  },
  {
    name: 'order list status=1 unpaginated, 304 to its ETag',
    path: '/api/order/list?status=1',
    connections: 4,
    minDuration: 5,
    conditional: true,
    target: 5,
  },
  orderListPage,
  {
    name: 'order list status=1 page 100',
    path: '/api/order/list?status=1&page=100&pageSize=20',
    connections: 8,
    minDuration: 5,
  },
  { ...wholeOrderList, target: 3 },
  {
    name: 'order create',
    path: '/api/order/create',
    connections: 32,
    method: 'POST',
    body: JSON.stringify({ service_id: 7, user_name: '压测用户', user_phone: '13900000000' }),
    maxCpuRatio: 0.75,
  },
  {
    name: 'order create with Idempotency-Key',
    path: '/api/order/create',
    connections: 32,
    method: 'POST',
    body: JSON.stringify({ service_id: 7, user_name: '压测用户', user_phone: '13900000000' }),
    keyed: true,
  },
];

/**
 * Order create at least 1.3x the old server's throughput (and at most 0.75x
 * its CPU per order); a keyed create (which also writes its key) at least 1.0x
 * the old server's plain create; every other request at least 1.2x.
 */
const TARGETS: Record<string, number> = {
  'order create': 1.3,
  'order create with Idempotency-Key': 1.0,
};
const targetOf = (c: Case) => c.target ?? TARGETS[c.name] ?? 1.2;

/** The list's current ETag on `target`; none from a server that gives none (the old one). */
async function etagOf(url: string): Promise<string | undefined> {
  const res = await fetch(url);
  await res.arrayBuffer();
  return res.headers.get('etag') ?? undefined;
}

export async function measure(
  target: RunningServer,
  c: Case,
  { duration, warmUp }: BenchSettings,
  dbCpu: () => Promise<number>,
  brokerCpu?: () => Promise<number>,
): Promise<Measured> {
  const etag = c.conditional ? await etagOf(target.url + c.path) : undefined;
  const request = {
    url: target.url + c.path,
    connections: c.connections,
    method: c.method,
    body: c.body,
    headers: etag ? { 'if-none-match': etag } : undefined,
    uniqueHeader: c.keyed ? 'idempotency-key' : undefined,
  };
  if (warmUp > 0) await load({ ...request, duration: warmUp });
  await target.settle('/api/merchant/list');
  target.resetPeak();
  const spentOurs = await spentSince(() => target.cpuSeconds());
  const spentDb = await spentSince(dbCpu);
  const spentBroker = brokerCpu && (await spentSince(brokerCpu));
  const result = await load({ ...request, duration: Math.max(duration, c.minDuration ?? 0) });
  const [cpu, db, broker] = [await spentOurs(), await spentDb(), await spentBroker?.()];
  // A conditional request's 304 is its answer, and every one should be one.
  const expected = etag ? result.requests : 0;
  if (result.errors > 0 || result.non2xx !== expected) {
    throw new Error(`${c.name}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  }
  const perRequest = (seconds: number) => (seconds * 1e6) / result.requests;
  return {
    ...result,
    rss: target.peakRssMb(),
    cpuUs: perRequest(cpu),
    dbCpuUs: perRequest(db),
    ...(broker === undefined ? {} : { brokerCpuUs: perRequest(broker) }),
  };
}

/**
 * The first list after a change: a service of the listed category is
 * published or unpublished through `changer`, another instance, then
 * `target` is asked for the list, so every list it answers is built anew.
 * Its CPU per list (the changes cost it nothing but the stamps' read), less
 * what the process spends while it serves nothing (its background polls, a
 * constant that only blurs a list's cost at this rate of lists).
 */
async function afterChange(
  target: RunningServer,
  changer: RunningServer,
  serviceId: number,
  { duration }: BenchSettings,
): Promise<Measured> {
  const latencies: number[] = [];
  // The process's CPU while it serves nothing (its publisher's and deliverer's polls), over 2 s.
  const idleFrom = await target.cpuSeconds();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idlePerSecond = ((await target.cpuSeconds()) - idleFrom) / 2;
  const cpuBefore = await target.cpuSeconds();
  const started = performance.now();
  for (let i = 0; performance.now() - started < duration * 1000; i++) {
    const status = i % 2 === 0 ? 'publish' : 'unpublish';
    const change = await fetch(`${changer.url}/api/service/${status}/${serviceId}`, {
      method: 'PUT',
    });
    await change.arrayBuffer();
    const asked = performance.now();
    const list = await fetch(target.url + CATEGORY);
    await list.arrayBuffer();
    latencies.push(performance.now() - asked);
    if (!change.ok || !list.ok)
      throw new Error(`list after a change: ${change.status}, ${list.status}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = (await target.cpuSeconds()) - cpuBefore - idlePerSecond * seconds;
  latencies.sort((a, b) => a - b);
  const at = (share: number) => latencies[Math.floor(share * (latencies.length - 1))] ?? 0;
  return {
    rps: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    rss: target.peakRssMb(),
    requests: latencies.length,
    errors: 0,
    non2xx: 0,
    cpuUs: (cpu * 1e6) / latencies.length,
  };
}

/** The row of the first list after a change against the same pairs on a server keeping no list. */
async function listAfterChange(
  ours: RunningServer,
  uncached: RunningServer,
  settings: BenchSettings,
): Promise<ResultRow> {
  progress('platform: the first service list by category after a change');
  const listed = (await (await fetch(ours.url + CATEGORY)).json()) as { data: { id: number }[] };
  const serviceId = listed.data[0]?.id;
  if (serviceId === undefined) throw new Error('no service in the listed category');
  const [kept, nothingKept] = await inTurns(settings.quick ? 1 : 3, [
    () => afterChange(ours, uncached, serviceId, settings),
    () => afterChange(uncached, ours, serviceId, settings),
  ]);
  if (!kept || !nothingKept) throw new Error('list after a change: measurements missing');
  const cpuRatio = pairedCpuRatio(kept, nothingKept);
  progress(
    `  ours ${kept.cpuUs?.toFixed(0)} us cpu per list vs ${nothingKept.cpuUs?.toFixed(0)} us keeping nothing`,
  );
  return row({
    scenario: 'platform: service list by category right after a change on another instance',
    rps: kept.rps,
    p50_ms: kept.p50,
    p99_ms: kept.p99,
    rss_mb: kept.rss,
    baseline: 'the same on LIST_CACHE_MB=0 (nothing kept, as before ETags)',
    baseline_rps: nothingKept.rps,
    ratio: pairedRatio(kept, nothingKept),
    cpu: { ours: kept.cpuUs ?? 0, baseline: nothingKept.cpuUs ?? 0, db: 0, baselineDb: 0 },
    cpu_ratio: cpuRatio,
    target: '<= 1.2x cpu/req',
    goal: { cpuRatioAtMost: 1.2 },
  });
}

/** A case of this checkout against BENCH_COMPARE_ROOT's, measured in the same turns. */
function againstEarlier(c: Case, mine: Turned, earlier: Turned): ResultRow {
  progress(
    `  BENCH_COMPARE_ROOT ${earlier.rps.toFixed(0)} rps (${earlier.cpuUs?.toFixed(0)} us cpu/req)`,
  );
  return row({
    scenario: `platform: ${c.name}, against BENCH_COMPARE_ROOT`,
    rps: mine.rps,
    p50_ms: mine.p50,
    p99_ms: mine.p99,
    rss_mb: mine.rss,
    baseline: 'BENCH_COMPARE_ROOT (the same requests, another checkout)',
    baseline_rps: earlier.rps,
    ratio: pairedRatio(mine, earlier),
    cpu: {
      ours: mine.cpuUs ?? 0,
      baseline: earlier.cpuUs ?? 0,
      db: mine.dbCpuUs ?? 0,
      baselineDb: earlier.dbCpuUs ?? 0,
    },
    cpu_ratio: pairedCpuRatio(mine, earlier),
    target: 'reported (no worse: about 1x)',
    met: null,
  });
}

/** Scenario 3: the platform's lists at 100,000 orders against the old server's handlers. */
export async function platformLists(settings: BenchSettings): Promise<ResultRow[]> {
  const server = mysqlServerFrom(settings.mysqlUrl);
  await ensureBothData(server);
  const ours = await startPlatform(server, OURS);
  const legacy = await startServer({
    script: join(repoRoot, 'bench/apps/legacy-platform.ts'),
    typescript: true,
    env: mysqlVariables({ ...server, database: LEGACY }),
  });
  const dbCpu = await mysqldCpu(server);
  const uncached = await startPlatform(server, OURS, { LIST_CACHE_MB: '0' });
  // BENCH_COMPARE_ROOT: another built checkout (say, main before a change), measured in the same turns.
  const compareRoot = process.env.BENCH_COMPARE_ROOT;
  const before = compareRoot
    ? await startServer({
        script: join(compareRoot, 'services/platform/dist/main.js'),
        env: mysqlVariables({ ...server, database: OURS }),
      })
    : undefined;
  const rows: ResultRow[] = [];
  try {
    for (const c of cases) {
      progress(`platform: ${c.name}`);
      const [base, mine, earlier] = await inTurns(settings.quick ? 1 : 3, [
        () => measure(legacy, c, settings, dbCpu),
        () => measure(ours, c, settings, dbCpu),
        ...(before ? [() => measure(before, c, settings, dbCpu)] : []),
      ]);
      if (!base || !mine) throw new Error(`${c.name}: measurements missing`);
      const ratio = pairedRatio(mine, base);
      const cpuRatio = pairedCpuRatio(mine, base);
      rows.push(
        row({
          scenario: `platform: ${c.name}`,
          rps: mine.rps,
          p50_ms: mine.p50,
          p99_ms: mine.p99,
          rss_mb: mine.rss,
          baseline: c.keyed
            ? "old server's plain create (it has no keys)"
            : c.conditional
              ? "old server's 200 of the same list (it has no ETags)"
              : 'old server (express + mysql2, no LIMIT)',
          baseline_rps: base.rps,
          ratio,
          cpu: {
            ours: mine.cpuUs ?? 0,
            baseline: base.cpuUs ?? 0,
            db: mine.dbCpuUs ?? 0,
            baselineDb: base.dbCpuUs ?? 0,
          },
          cpu_ratio: cpuRatio,
          target:
            `>= ${targetOf(c).toFixed(1)}x rps` +
            (c.maxCpuRatio === undefined ? '' : `, <= ${c.maxCpuRatio}x cpu/req`),
          goal: { ratioAtLeast: targetOf(c), cpuRatioAtMost: c.maxCpuRatio },
        }),
      );
      progress(
        `  ours ${mine.rps.toFixed(0)} rps (p50 ${mine.p50.toFixed(1)} ms, ${mine.rss} MB, ${mine.cpuUs?.toFixed(0)} us cpu/req, db ${mine.dbCpuUs?.toFixed(0)} us) vs old ${base.rps.toFixed(0)} rps (p50 ${base.p50.toFixed(1)} ms, ${base.rss} MB, ${base.cpuUs?.toFixed(0)} us, db ${base.dbCpuUs?.toFixed(0)} us)`,
      );
      if (earlier) rows.push(againstEarlier(c, mine, earlier));
    }
    rows.push(await listAfterChange(ours, uncached, settings));
  } finally {
    await Promise.all([ours.stop(), legacy.stop(), uncached.stop(), before?.stop()]);
    await trimOrders(server, OURS, ORDERS);
    await trimOrders(server, LEGACY, ORDERS);
  }
  return rows;
}
