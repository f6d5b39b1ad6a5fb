import { join } from 'node:path';
import { mysqlVariables } from '@svc/test-kit';
import { load } from '../lib/load.js';
import { mysqlServerFrom, trimOrders } from '../lib/platform-data.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import { type RunningServer, repoRoot, SHIPPED_DEFAULTS, startServer } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { type Measured, median } from '../lib/turns.js';
import { ensureData } from './platform-lists.js';

const ORDERS = 100_000;
const PLATFORM_DB = `bench_platform_${ORDERS}`;
const AUTH_DB = 'bench_auth';
const CONNECTIONS = 32;

interface Request {
  path: string;
  method?: 'POST';
  body?: string;
  headers?: Record<string, string>;
}

interface SideMeasured extends Measured {
  /** Requests answered per second of the process's own CPU time. */
  perCpuSecond: number;
}

/** Rounds of ROUND_SECONDS: many short paired rounds let a median see past the machine's drift. */
const ROUNDS = 8;
const ROUND_SECONDS = 3;

/**
 * One round: the load on both processes at once, half the connections each,
 * started in the given order. Answers the two in the order of `servers`.
 */
async function sideBySide(
  servers: [RunningServer, RunningServer],
  request: Request,
  settings: BenchSettings,
  reversed: boolean,
): Promise<SideMeasured[]> {
  const options = (target: RunningServer) => ({
    url: target.url + request.path,
    connections: CONNECTIONS / 2,
    ...request,
  });
  if (settings.warmUp > 0) {
    await Promise.all(servers.map((s) => load({ ...options(s), duration: settings.warmUp })));
  }
  for (const server of servers) server.resetPeak();
  const duration = Math.min(settings.duration, ROUND_SECONDS);
  const order = reversed ? [1, 0] : [0, 1];
  const cpuBefore = await Promise.all(servers.map((s) => s.cpuSeconds()));
  const loads = new Array<Promise<Awaited<ReturnType<typeof load>>>>(2);
  for (const i of order) loads[i] = load({ ...options(servers[i] as RunningServer), duration });
  const results = await Promise.all(loads);
  const cpuAfter = await Promise.all(servers.map((s) => s.cpuSeconds()));
  return results.map((result, i) => {
    if (result.errors > 0 || result.non2xx > 0) {
      throw new Error(`${request.path}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
    }
    const cpu = (cpuAfter[i] as number) - (cpuBefore[i] as number);
    return {
      ...result,
      rss: (servers[i] as RunningServer).peakRssMb(),
      perCpuSecond: result.requests / cpu,
    };
  });
}

/**
 * Two processes of one service, metrics on (the default) and off, loaded at
 * the same moments, so whatever slows the shared machine slows both. The cost
 * is read from each process's own CPU time per request (/proc), not from its
 * throughput, which swings with the share of the two cores the scheduler
 * happens to give it (0.75 to 1.16 between rounds of the same pair). Which load
 * starts first alternates from round to round; the ratio is the median of the
 * rounds' requests per CPU-second, on over off.
 */
async function onAndOff(
  name: string,
  start: (metricsEnabled: string) => Promise<RunningServer>,
  request: (server: RunningServer) => Promise<Request>,
  settings: BenchSettings,
): Promise<ResultRow> {
  const on = await start('true');
  const off = await start('false');
  try {
    // Each process gets the same history: an auth process that ran the setup's
    // login (scrypt) measured 7% fewer requests per CPU-second than its twin
    // with the same settings that did not.
    const sent = await request(on);
    await request(off);
    const rounds: SideMeasured[][] = [];
    for (let round = 0; round < (settings.quick ? 1 : ROUNDS); round++) {
      rounds.push(await sideBySide([on, off], sent, settings, round % 2 === 1));
    }
    const mean = (i: number, field: 'rps' | 'p50' | 'p99') =>
      rounds.reduce((sum, r) => sum + (r[i] as Measured)[field], 0) / rounds.length;
    const ratios = rounds.map(
      ([a, b]) => (a as SideMeasured).perCpuSecond / (b as SideMeasured).perCpuSecond,
    );
    const ratio = median(ratios);
    progress(`  on/off by round: ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
    const withMetrics = {
      rps: mean(0, 'rps'),
      p50: mean(0, 'p50'),
      p99: mean(0, 'p99'),
      rss: Math.max(...rounds.map((r) => (r[0] as Measured).rss)),
    };
    const without = { rps: mean(1, 'rps') };
    progress(`  metrics on ${withMetrics.rps.toFixed(0)} rps, off ${without.rps.toFixed(0)} rps`);
    return row({
      scenario: `metrics cost: ${name}`,
      config: SHIPPED_DEFAULTS,
      rps: withMetrics.rps,
      p50_ms: withMetrics.p50,
      p99_ms: withMetrics.p99,
      rss_mb: withMetrics.rss,
      baseline: 'the same service with METRICS_ENABLED=false',
      baseline_rps: without.rps,
      ratio,
      target: '>= 0.95x requests per CPU-second (under 5% cost)',
      goal: { ratioAtLeast: 0.95 },
    });
  } finally {
    await Promise.all([on.stop(), off.stop()]);
  }
}

/** Scenario: what /metrics' bookkeeping costs a guarded read and an order create. */
export async function metricsCost(settings: BenchSettings): Promise<ResultRow[]> {
  const server = mysqlServerFrom(settings.mysqlUrl);
  const rows: ResultRow[] = [];

  progress(
    `metrics cost: auth GET /api/user/me at ${CONNECTIONS / 2} connections on each, side by side`,
  );
  rows.push(
    await onAndOff(
      'auth GET /api/user/me (guarded)',
      (enabled) =>
        startServer({
          script: join(repoRoot, 'services/auth/dist/main.js'),
          env: {
            ...mysqlVariables({ ...server, database: AUTH_DB }),
            REDIS_URL: settings.redisUrl,
            METRICS_ENABLED: enabled,
          },
        }),
      async (auth) => {
        const credentials = JSON.stringify({ username: 'bench_metrics', password: 'bench-pass-1' });
        const post = (path: string) =>
          fetch(auth.url + path, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: credentials,
          });
        await post('/api/user/register');
        const { data } = (await (await post('/api/user/login')).json()) as {
          data: { token: string };
        };
        return { path: '/api/user/me', headers: { authorization: `Bearer ${data.token}` } };
      },
      settings,
    ),
  );

  await ensureData(server, PLATFORM_DB, ORDERS);
  progress(
    `metrics cost: platform POST /api/order/create at ${CONNECTIONS / 2} connections on each, side by side`,
  );
  try {
    rows.push(
      await onAndOff(
        'platform POST /api/order/create',
        (enabled) =>
          startServer({
            script: join(repoRoot, 'services/platform/dist/main.js'),
            env: {
              ...mysqlVariables({ ...server, database: PLATFORM_DB }),
              METRICS_ENABLED: enabled,
            },
          }),
        async () => ({
          path: '/api/order/create',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ service_id: 7, user_name: '压测用户', user_phone: '13900000000' }),
        }),
        settings,
      ),
    );
  } finally {
    await trimOrders(server, PLATFORM_DB, ORDERS);
  }
  return rows;
}
