import { load } from '../lib/load.js';
import { mysqlServerFrom } from '../lib/platform-data.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import type { BenchSettings } from '../lib/settings.js';
import { ensureData, startPlatform } from './platform-lists.js';

const SIZES = [10_000, 100_000, 1_000_000];
// Page 100 of 20 rows exists at every size (10,000 orders hold 3,333 of status 1);
// a page past the end of the list would compare an empty answer with a real one.
const PAGES = [1, 100];

/** Scenario 4: the order list page's p50 latency as the table grows a hundredfold. */
export async function growth(settings: BenchSettings): Promise<ResultRow[]> {
  const server = mysqlServerFrom(settings.mysqlUrl);
  const curve: Record<
    number,
    Record<number, { p50: number; p99: number; rps: number; rss: number }>
  > = {};
  for (const size of SIZES) {
    const database = `bench_platform_${size}`;
    await ensureData(server, database, size);
    const platform = await startPlatform(server, database);
    try {
      curve[size] = {};
      for (const page of PAGES) {
        progress(`growth: ${size} orders, page ${page}`);
        platform.resetPeak();
        const result = await load({
          url: `${platform.url}/api/order/list?status=1&page=${page}&pageSize=20`,
          connections: 8,
          duration: settings.duration,
        });
        curve[size][page] = {
          p50: result.p50,
          p99: result.p99,
          rps: result.rps,
          rss: platform.peakRssMb(),
        };
      }
    } finally {
      await platform.stop();
    }
  }
  progress('growth curve (p50 ms of GET /api/order/list?status=1&pageSize=20):');
  for (const page of PAGES) {
    progress(
      `  page ${page}: ${SIZES.map((size) => `${size}: ${curve[size]?.[page]?.p50} ms`).join(', ')}`,
    );
  }
  const smallest = SIZES[0] as number;
  const largest = SIZES[SIZES.length - 1] as number;
  return PAGES.map((page) => {
    const small = curve[smallest]?.[page];
    const large = curve[largest]?.[page];
    if (!small || !large) throw new Error('growth curve incomplete');
    // p50 of a fast loopback request often rounds to 0 or 1 ms; floor it at 1 ms.
    const growthRatio = Math.max(large.p50, 1) / Math.max(small.p50, 1);
    return row({
      scenario: `growth: order page ${page} at ${largest} vs ${smallest} orders`,
      rps: large.rps,
      p50_ms: large.p50,
      p99_ms: large.p99,
      rss_mb: large.rss,
      baseline: `same page at ${smallest} orders`,
      baseline_rps: small.rps,
      ratio: Math.round(growthRatio * 100) / 100,
      target: 'p50 growth <= 2x',
      met: growthRatio <= 2,
    });
  });
}
