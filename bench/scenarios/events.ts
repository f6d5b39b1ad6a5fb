import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { mysqlVariables } from '@svc/test-kit';
import mysql from 'mysql2/promise';
import { mysqldCpu } from '../lib/mysqld.js';
import { type MysqlServer, mysqlServerFrom, trimOrders } from '../lib/platform-data.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import { type RunningServer, repoRoot, startServer } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { inTurns, pairedCpuRatio, pairedRatio } from '../lib/turns.js';
import { ensureBothData, measure, startPlatform } from './platform-lists.js';

const ORDER = JSON.stringify({ service_id: 7, user_name: '压测用户', user_phone: '13900000000' });

/**
 * Order create, each with its order.created event, at least 2x the old
 * server's plain create at most 0.5x its CPU per order; a keyed create at
 * least 1.75x.
 */
const cases = [
  { name: 'order create (with its event)', keyed: undefined, ratio: 2, cpu: 0.5 },
  { name: 'order create with Idempotency-Key (with its event)', keyed: true as const, ratio: 1.75 },
];

const post = (url: string, path: string, body: object) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((res) => res.json() as Promise<{ code: number; data: { id: number } }>);

/**
 * Events per second sent to one webhook receiver that answers 200 at once: a
 * backlog of `count` deliveries (of events the creates above wrote) is made
 * due at once, and timed from the first delivery to the last.
 */
async function deliveryThroughput(
  ours: RunningServer,
  server: MysqlServer,
  database: string,
  count: number,
) {
  const received: number[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(Date.now());
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const hook = await post(ours.url, '/api/webhooks', { url, types: ['service.added'] });
  const db = await mysql.createConnection({ ...server, database });
  try {
    // The platform may still be numbering the creates' events, whose locks this
    // INSERT's read can meet: a deadlock it loses is tried again.
    for (let attempt = 1; ; attempt++) {
      try {
        await db.query(
          `INSERT INTO webhook_deliveries (webhook_id, event_id)
           SELECT ?, id FROM events WHERE id IS NOT NULL ORDER BY id DESC LIMIT ?`,
          [hook.data.id, count],
        );
        break;
      } catch (err) {
        if ((err as { errno?: number }).errno !== 1213 || attempt === 5) throw err;
      }
    }
    const deadline = Date.now() + 120_000;
    while (received.length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = ((received.at(-1) as number) - (received[0] as number)) / 1000;
    return { delivered: received.length, rps: (received.length - 1) / seconds };
  } finally {
    await db.end();
    await fetch(`${ours.url}/api/webhooks/${hook.data.id}`, { method: 'DELETE' });
    receiver.closeAllConnections();
    receiver.close();
  }
}

/**
 * Milliseconds from a create's answer on one instance to its event on a
 * stream of the other, for `count` creates 20 ms apart.
 */
async function commitToStream(a: RunningServer, b: RunningServer, count: number) {
  const seen = new Map<number, number>();
  const stream = request(`${b.url}/api/events/stream`);
  await new Promise<void>((resolve, reject) => {
    stream.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const data = text
            .slice(0, end)
            .split('\n')
            .find((line) => line.startsWith('data: '));
          text = text.slice(end + 2);
          if (data) seen.set(JSON.parse(data.slice(6)).data.id, Date.now());
        }
      });
      resolve();
    });
    stream.on('error', reject);
    stream.end();
  });
  const answered = new Map<number, number>();
  for (let i = 0; i < count; i++) {
    const created = await post(a.url, '/api/order/create', JSON.parse(ORDER));
    answered.set(created.data.id, Date.now());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await new Promise((resolve) => setTimeout(resolve, 1500));
  stream.destroy();
  const latencies = [...answered].map(
    ([id, at]) => (seen.get(id) ?? Number.POSITIVE_INFINITY) - at,
  );
  latencies.sort((x, y) => x - y);
  const at = (share: number) => latencies[Math.ceil(latencies.length * share) - 1] as number;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

type Case = (typeof cases)[number];

/**
 * One create case of ours against a baseline server, in turns. Both get the
 * same requests: a keyed case's Idempotency-Key goes to the old server too,
 * which ignores it (its create is the plain one), so the load generator, on
 * the same two cores, spends alike on both (a fresh header costs it about
 * 15 µs a request).
 */
async function createsAgainst(
  c: Case,
  baseline: { server: RunningServer; label: string; suffix?: string },
  ours: RunningServer,
  settings: BenchSettings,
  dbCpu: () => Promise<number>,
  goal?: { ratioAtLeast: number; cpuRatioAtMost?: number },
): Promise<ResultRow> {
  progress(`events: ${c.name} against ${baseline.label}`);
  const request = {
    name: c.name,
    path: '/api/order/create',
    connections: 32,
    method: 'POST' as const,
    body: ORDER,
    keyed: c.keyed,
  };
  const [base, mine] = await inTurns(settings.quick ? 1 : 3, [
    () => measure(baseline.server, request, settings, dbCpu),
    () => measure(ours, request, settings, dbCpu),
  ]);
  if (!base || !mine) throw new Error(`${c.name}: measurements missing`);
  progress(
    `  ours ${mine.rps.toFixed(0)} rps (${mine.cpuUs?.toFixed(0)} us cpu/req, db ${mine.dbCpuUs?.toFixed(0)} us) vs ${base.rps.toFixed(0)} rps (${base.cpuUs?.toFixed(0)} us, db ${base.dbCpuUs?.toFixed(0)} us)`,
  );
  return row({
    scenario: `events: ${c.name}${baseline.suffix ?? ''}`,
    rps: mine.rps,
    p50_ms: mine.p50,
    p99_ms: mine.p99,
    rss_mb: mine.rss,
    baseline: baseline.label,
    baseline_rps: base.rps,
    ratio: pairedRatio(mine, base),
    cpu: {
      ours: mine.cpuUs ?? 0,
      baseline: base.cpuUs ?? 0,
      db: mine.dbCpuUs ?? 0,
      baselineDb: base.dbCpuUs ?? 0,
    },
    cpu_ratio: pairedCpuRatio(mine, base),
    ...(goal
      ? {
          target: `>= ${goal.ratioAtLeast}x rps${goal.cpuRatioAtMost ? `, <= ${goal.cpuRatioAtMost}x cpu/req` : ''}`,
          goal,
        }
      : { target: 'reported', met: null }),
  });
}

/** Scenario: what events cost order create, and how fast they reach webhooks and streams. */
export async function eventsCost(settings: BenchSettings): Promise<ResultRow[]> {
  const server: MysqlServer = mysqlServerFrom(settings.mysqlUrl);
  const { ours: database, legacy: legacyDatabase } = await ensureBothData(server);
  // The bench's webhook receiver listens on loopback; the setting changes nothing else.
  const ours = await startPlatform(server, database, { WEBHOOK_ALLOW_PRIVATE: 'true' });
  const legacy = await startServer({
    script: join(repoRoot, 'bench/apps/legacy-platform.ts'),
    typescript: true,
    env: mysqlVariables({ ...server, database: legacyDatabase }),
  });
  const dbCpu = await mysqldCpu(server);
  const rows: ResultRow[] = [];
  // BENCH_COMPARE_ROOT: another built checkout (one before events), measured on the same data too.
  const compareRoot = process.env.BENCH_COMPARE_ROOT;
  const before = compareRoot
    ? await startServer({
        script: join(compareRoot, 'services/platform/dist/main.js'),
        env: mysqlVariables({ ...server, database }),
      })
    : undefined;
  try {
    const beforeLabel = 'BENCH_COMPARE_ROOT (the same create, no events)';
    for (const c of before ? cases : []) {
      const baseline = {
        server: before as RunningServer,
        label: beforeLabel,
        // Its own name, so a summary of several runs keeps it apart from the old server's row.
        suffix: ', against BENCH_COMPARE_ROOT',
      };
      rows.push(await createsAgainst(c, baseline, ours, settings, dbCpu));
    }
    // Its deliverer would claim the backlog below too, and refuse the loopback receiver.
    await before?.stop();
    for (const c of cases) {
      const baseline = {
        server: legacy,
        label: "old server's plain create (no events, no keys)",
      };
      const goal = { ratioAtLeast: c.ratio, cpuRatioAtMost: c.cpu };
      rows.push(await createsAgainst(c, baseline, ours, settings, dbCpu, goal));
    }

    progress('events: webhook delivery throughput');
    const deliveries = await deliveryThroughput(
      ours,
      server,
      database,
      settings.quick ? 1000 : 3000,
    );
    rows.push(
      row({
        scenario: 'events: webhook deliveries to one receiver (events/s)',
        rps: deliveries.rps,
        p50_ms: 0,
        p99_ms: 0,
        rss_mb: ours.peakRssMb(),
        config: 'defaults, WEBHOOK_ALLOW_PRIVATE=true (the receiver is on loopback)',
        baseline: null,
        baseline_rps: null,
        target: 'reported',
        met: null,
      }),
    );
    progress(`  ${deliveries.delivered} delivered, ${deliveries.rps.toFixed(0)} events/s`);

    progress('events: commit-to-stream latency, create on one instance, stream on another');
    const other = await startPlatform(server, database, { WEBHOOK_ALLOW_PRIVATE: 'true' });
    try {
      const latency = await commitToStream(ours, other, settings.quick ? 100 : 300);
      rows.push(
        row({
          scenario: 'events: commit-to-stream latency, another instance (ms)',
          rps: 0,
          p50_ms: latency.p50,
          p99_ms: latency.p99,
          rss_mb: other.peakRssMb(),
          baseline: null,
          baseline_rps: null,
          ratio: latency.p95,
          target: 'p95 <= 1000 ms (ratio column: p95 ms)',
          met: latency.p95 <= 1000,
        }),
      );
      progress(`  p50 ${latency.p50} ms, p95 ${latency.p95} ms, p99 ${latency.p99} ms`);
    } finally {
      await other.stop();
    }
  } finally {
    await Promise.all([ours.stop(), legacy.stop(), before?.stop()]);
    await trimOrders(server, database, 100_000);
    await trimOrders(server, legacyDatabase, 100_000);
  }
  return rows;
}
