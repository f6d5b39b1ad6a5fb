import { Webhook } from 'standardwebhooks';
import {
  newSecret,
  signature,
  signingKey,
} from '../../services/platform/src/webhooks/signature.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import type { BenchSettings } from '../lib/settings.js';
import { median } from '../lib/turns.js';

/** An order.created delivery as the deliverer signs it. */
const BODY = Buffer.from(
  JSON.stringify({
    id: '123456',
    type: 'order.created',
    createdAt: '2026-11-27T12:00:00.000Z',
    data: {
      id: 123456,
      service_id: 7,
      user_name: '压测用户',
      user_phone: '13900000000',
      create_time: '2026-11-27T12:00:00.000Z',
      status: 0,
      server_name: '日常保洁',
      service_name: '日常保洁',
      price: '150.00',
      merchant_name: '张三家政',
    },
  }),
);

/** CPU µs per signature over `count` signatures. */
function cpuPerSignature(sign: (i: number) => string, count: number): number {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) sign(i);
  const { user, system } = process.cpuUsage(started);
  return (user + system) / count;
}

/**
 * Scenario: what signing one webhook delivery costs with our node:crypto HMAC
 * (webhooks/signature.ts) and with the standardwebhooks package, measured in
 * turns in this process; the two headers are checked equal first.
 */
export async function signingCost(settings: BenchSettings): Promise<ResultRow[]> {
  const secret = newSecret();
  const key = signingKey(secret);
  const theirs = new Webhook(secret);
  const at = new Date(1_795_000_000_000);
  const timestamp = Math.floor(at.getTime() / 1000);
  const body = BODY.toString();
  if (signature(key, '1', timestamp, BODY) !== theirs.sign('1', at, body)) {
    throw new Error('signing: the two signatures differ');
  }
  const count = settings.quick ? 5_000 : 50_000;
  const ours: number[] = [];
  const package_: number[] = [];
  for (let round = 0; round < 5; round++) {
    const both = [
      () => ours.push(cpuPerSignature((i) => signature(key, String(i), timestamp, BODY), count)),
      () => package_.push(cpuPerSignature((i) => theirs.sign(String(i), at, body), count)),
    ];
    for (const measure of round % 2 ? both.reverse() : both) measure();
  }
  const [oursUs, theirsUs] = [median(ours), median(package_)];
  progress(
    `signing: ours ${oursUs.toFixed(1)} us, standardwebhooks ${theirsUs.toFixed(1)} us per signature`,
  );
  return [
    row({
      scenario: `events: signing one delivery (${BODY.length} bytes), CPU µs`,
      rps: 1e6 / oursUs,
      p50_ms: 0,
      p99_ms: 0,
      rss_mb: 0,
      baseline: 'the standardwebhooks package (1.1.1) signing the same',
      baseline_rps: 1e6 / theirsUs,
      ratio: theirsUs / oursUs,
      cpu: { ours: oursUs, baseline: theirsUs, db: 0, baselineDb: 0 },
      cpu_ratio: oursUs / theirsUs,
      target: 'reported (ratio: signatures per CPU second, ours over the package)',
      met: null,
    }),
  ];
}
