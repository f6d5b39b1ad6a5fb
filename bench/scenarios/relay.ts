import { parsePrometheusText, sampleValue, startNatsServer } from '@svc/test-kit';
import mysql from 'mysql2/promise';
import { mysqldCpu } from '../lib/mysqld.js';
import { type MysqlServer, mysqlServerFrom, trimOrders } from '../lib/platform-data.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import { cpuSeconds, type RunningServer } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { inTurns, type Measured, median, pairedCpuRatio, pairedRatio } from '../lib/turns.js';
import { ensureBothData, measure, startPlatform } from './platform-lists.js';

const STREAM = 'BENCH_EVENTS';

const create = {
  name: 'order create',
  path: '/api/order/create',
  connections: 32,
  method: 'POST' as const,
  body: JSON.stringify({ service_id: 7, user_name: '压测用户', user_phone: '13900000000' }),
};

/** How often both turns read the instance's /metrics: the relay's lag, and the same cost without it. */
const SAMPLE_MS = 250;

/** The relay's lag, as the instance's gauges give it. */
async function lagOf(server: RunningServer): Promise<{ events: number; seconds: number }> {
  const samples = parsePrometheusText(await (await fetch(`${server.url}/metrics`)).text());
  return {
    events: sampleValue(samples, 'platform_events_relay_lag_events'),
    seconds: sampleValue(samples, 'platform_events_relay_lag_seconds'),
  };
}

/** The events the relay has yet to send, as MySQL holds them. */
async function backlogOf(db: mysql.Connection): Promise<{ relayed: number; left: number }> {
  const [[row]] = (await db.query(
    `SELECT r.last_id AS relayed, c.last_id - r.last_id AS \`left\` FROM event_relays r
     JOIN event_counter c ON c.name = 'events' WHERE r.stream = ?`,
    [STREAM],
  )) as unknown as [[{ relayed: number; left: number }]];
  return { relayed: Number(row.relayed), left: Number(row.left) };
}

/**
 * Resolves once the relay has nothing left to send, with the events it sent
 * a second from its first move of the position to its last.
 */
async function caughtUp(db: mysql.Connection): Promise<number> {
  const deadline = Date.now() + 120_000;
  const start = await backlogOf(db);
  let first: { at: number; relayed: number } | undefined;
  for (;;) {
    const now = await backlogOf(db);
    if (first === undefined && now.relayed > start.relayed) {
      first = { at: performance.now(), relayed: now.relayed };
    }
    if (now.left === 0) {
      if (!first || now.relayed === first.relayed) return 0;
      return (now.relayed - first.relayed) / ((performance.now() - first.at) / 1000);
    }
    if (Date.now() > deadline) throw new Error('the relay did not catch up within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Measures `c` on `server` while its /metrics is read every SAMPLE_MS, as
 * both turns are (so the scrapes cost both alike), each sample given to `seen`.
 */
async function measureSampled(
  server: RunningServer,
  settings: BenchSettings,
  dbCpu: () => Promise<number>,
  brokerCpu: (() => Promise<number>) | undefined,
  seen: (lag: { events: number; seconds: number }) => void,
): Promise<Measured> {
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      seen(await lagOf(server));
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
  })();
  try {
    return await measure(server, create, settings, dbCpu, brokerCpu);
  } finally {
    sampling = false;
    await sampler;
  }
}

/**
 * Scenario: order create with the JetStream relay on (a platform with
 * EVENTS_NATS_URL, relaying every event of the creates as they commit)
 * against the same create with no relay, in turns on one database; the
 * relay's lag under that burst (its gauge, read every SAMPLE_MS); the CPU
 * nats-server spends per event, on the same two cores here, where
 * production gives the broker machines of its own; and the events a second
 * it relays when it starts with the backlog the turn without it left.
 */
export async function relayCost(settings: BenchSettings): Promise<ResultRow[]> {
  const server: MysqlServer = mysqlServerFrom(settings.mysqlUrl);
  const { ours: database } = await ensureBothData(server);
  const nats = await startNatsServer();
  const dbCpu = await mysqldCpu(server);
  const db = await mysql.createConnection({ ...server, database });
  // A reused database gets this build's migrations (event_relays) from a start.
  await (await startPlatform(server, database)).stop();
  // The stream starts at the events of now: the seeded history is not the figure.
  await db.query(
    `INSERT INTO event_relays (stream, last_id) SELECT ?, last_id FROM event_counter WHERE name = 'events'
     ON DUPLICATE KEY UPDATE last_id = VALUES(last_id)`,
    [STREAM],
  );
  const natsCpu = async () => cpuSeconds(nats.pid as number);
  const rates: number[] = [];
  const lags: number[] = [];
  const relaying = async (): Promise<Measured> => {
    const backlog = (await backlogOf(db)).left;
    const on = await startPlatform(server, database, {
      EVENTS_NATS_URL: nats.url,
      EVENTS_NATS_STREAM: STREAM,
    });
    try {
      // The creates of the turn without it wait: their catch-up is the rate.
      const rate = await caughtUp(db);
      if (backlog >= 1000) rates.push(rate);
      const measured = await measureSampled(on, settings, dbCpu, natsCpu, (lag) =>
        lags.push(lag.seconds),
      );
      await caughtUp(db);
      return measured;
    } finally {
      await on.stop();
    }
  };
  const notRelaying = async (): Promise<Measured> => {
    const off = await startPlatform(server, database);
    try {
      return await measureSampled(off, settings, dbCpu, undefined, () => {});
    } finally {
      await off.stop();
    }
  };
  try {
    progress('relay: order create with the JetStream relay on, and without it');
    const [off, on] = await inTurns(settings.quick ? 1 : 3, [notRelaying, relaying]);
    if (!on || !off) throw new Error('relay: measurements missing');
    lags.sort((a, b) => a - b);
    const lagP95 = lags[Math.ceil(lags.length * 0.95) - 1] ?? 0;
    const rate = rates.length > 0 ? median(rates) : 0;
    const brokerUs = on.brokerCpuUs ?? 0;
    progress(
      `  on ${on.rps.toFixed(0)} rps (${on.cpuUs?.toFixed(0)} us cpu/req) vs off ${off.rps.toFixed(0)} rps (${off.cpuUs?.toFixed(0)} us); nats-server ${brokerUs.toFixed(0)} us/req; lag p95 ${lagP95.toFixed(3)} s; ${rate.toFixed(0)} events/s relayed from a backlog`,
    );
    return [
      row({
        scenario: 'relay: order create with EVENTS_NATS_URL (every event to JetStream)',
        rps: on.rps,
        p50_ms: on.p50,
        p99_ms: on.p99,
        rss_mb: on.rss,
        config: 'defaults, EVENTS_NATS_URL set (nats-server 2.9 -js on loopback)',
        baseline: 'the same create without EVENTS_NATS_URL',
        baseline_rps: off.rps,
        ratio: pairedRatio(on, off),
        cpu: {
          ours: on.cpuUs ?? 0,
          baseline: off.cpuUs ?? 0,
          db: on.dbCpuUs ?? 0,
          baselineDb: off.dbCpuUs ?? 0,
        },
        cpu_ratio: pairedCpuRatio(on, off),
        target: ">= 0.9x rps (no worse, within the pairs' noise)",
        goal: { ratioAtLeast: 0.9 },
      }),
      row({
        scenario: 'relay: lag under that burst of creates, p95 (s; ratio column)',
        rps: 0,
        p50_ms: 0,
        p99_ms: 0,
        rss_mb: on.rss,
        config: 'defaults, EVENTS_NATS_URL set',
        baseline: null,
        baseline_rps: null,
        ratio: lagP95,
        target: 'reported',
        met: null,
      }),
      row({
        scenario: 'relay: nats-server CPU per create under that burst (µs; ratio column)',
        rps: 0,
        p50_ms: 0,
        p99_ms: 0,
        rss_mb: on.rss,
        config: 'defaults, EVENTS_NATS_URL set; the broker on the same two cores',
        baseline: null,
        baseline_rps: null,
        ratio: brokerUs,
        target: 'reported',
        met: null,
      }),
      row({
        scenario: 'relay: events relayed to JetStream per second, from a backlog (median of turns)',
        rps: rate,
        p50_ms: 0,
        p99_ms: 0,
        rss_mb: on.rss,
        config: 'defaults, EVENTS_NATS_URL set',
        baseline: null,
        baseline_rps: null,
        target: 'reported',
        met: null,
      }),
    ];
  } finally {
    await db.query('DELETE FROM event_relays WHERE stream = ?', [STREAM]);
    await db.end();
    await nats.destroy();
    await trimOrders(server, database, 100_000);
  }
}
