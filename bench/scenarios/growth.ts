import mysql, { type RowDataPacket } from 'mysql2/promise';
import { encodeCursor } from '../../services/platform/src/orders/order-cursor.js';
import { load } from '../lib/load.js';
import { type MysqlServer, mysqlServerFrom } from '../lib/platform-data.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import type { RunningServer } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { ensureData, startPlatform } from './platform-lists.js';

const SIZES = [10_000, 100_000, 1_000_000];
// Page 100 of 20 rows exists at every size (10,000 orders hold 3,333 of status 1);
// a page past the end of the list would compare an empty answer with a real one.
const PAGES = [1, 100];
const CURSOR_PAGE_SIZE = 100;
const CURSOR_DEPTH = 900_000;

/**
 * The cursor of the page after row `depth` of the whole order list: the row's
 * position, signed with the database's secret, as the service would make it
 * had a client walked that far (9,000 pages, which the bench does not wait for).
 */
async function cursorAfterRow(server: MysqlServer, database: string, depth: number) {
  const conn = await mysql.createConnection({ ...server, database });
  try {
    const [[secret]] = await conn.query<RowDataPacket[]>(
      "SELECT secret FROM platform_secrets WHERE name = 'cursor'",
    );
    const [[row]] = await conn.query<RowDataPacket[]>(
      `SELECT id, UNIX_TIMESTAMP(create_time) AS t FROM orders
       ORDER BY create_time DESC, id DESC LIMIT 1 OFFSET ?`,
      [depth - 1],
    );
    if (!secret || !row) throw new Error(`${database} has no row ${depth} or no cursor secret`);
    return encodeCursor(secret.secret, {
      status: undefined,
      createTime: Number(row.t),
      id: row.id,
    });
  } finally {
    await conn.end();
  }
}

/**
 * The first page of a cursor walk and the page after row 900,000, p50 side by
 * side; `shape` names how the orders spread over time.
 */
async function cursorDepth(
  platform: RunningServer,
  server: MysqlServer,
  database: string,
  settings: BenchSettings,
  shape: string,
): Promise<ResultRow> {
  // The service makes the cursor secret the first time it walks.
  await fetch(`${platform.url}/api/order/list?pageSize=1`);
  const cursor = await cursorAfterRow(server, database, CURSOR_DEPTH);
  const page = (query: string) =>
    load({
      url: `${platform.url}/api/order/list?pageSize=${CURSOR_PAGE_SIZE}${query}`,
      connections: 8,
      duration: settings.duration,
    });
  progress(
    `growth: cursor pages of ${CURSOR_PAGE_SIZE} (${shape}), the first and after row ${CURSOR_DEPTH}`,
  );
  const [first, deep] = [await page(''), await page(`&cursor=${cursor}`)];
  const ratio = Math.max(deep.p50, 1) / Math.max(first.p50, 1);
  progress(`  first page p50 ${first.p50} ms, after row ${CURSOR_DEPTH} p50 ${deep.p50} ms`);
  return row({
    scenario: `growth: cursor page after row ${CURSOR_DEPTH} at ${database.split('_').at(-1)} orders ${shape}`,
    rps: deep.rps,
    p50_ms: deep.p50,
    p99_ms: deep.p99,
    rss_mb: platform.peakRssMb(),
    baseline: `first cursor page (pageSize=${CURSOR_PAGE_SIZE})`,
    baseline_rps: first.rps,
    ratio: Math.round(ratio * 100) / 100,
    target: 'p50 <= 2x the first page',
    goal: { ratioAtMost: 2 },
  });
}

/** Scenario 4: the order list page's p50 latency as the table grows a hundredfold. */
export async function growth(settings: BenchSettings): Promise<ResultRow[]> {
  const server = mysqlServerFrom(settings.mysqlUrl);
  let deepCursor: ResultRow | undefined;
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
      if (size === SIZES.at(-1))
        deepCursor = await cursorDepth(platform, server, database, settings, '3 a second');
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
  const pageRows = PAGES.map((page) => {
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
      goal: { ratioAtMost: 2 },
    });
  });
  if (!deepCursor) throw new Error('cursor depth not measured');
  return [...pageRows, deepCursor, await sameSecondCursorDepth(server, settings)];
}

/**
 * The cursor pages again, with every one of 1,000,000 orders created in the
 * same second (a burst's shape): the walk's position then differs by id alone.
 */
async function sameSecondCursorDepth(server: MysqlServer, settings: BenchSettings) {
  const orders = SIZES.at(-1) as number;
  const database = `bench_platform_same_second_${orders}`;
  await ensureData(server, database, orders, true);
  const platform = await startPlatform(server, database);
  try {
    return await cursorDepth(platform, server, database, settings, 'in one second');
  } finally {
    await platform.stop();
  }
}
