import { SHIPPED_DEFAULTS } from './server.js';

/** What a row's ratios must reach; `met` is judged from it (in a summary, from the medians). */
export interface Goal {
  ratioAtLeast?: number;
  ratioAtMost?: number;
  cpuRatioAtMost?: number;
}

/** One row of bench/results.json and of the table in bench/RESULTS.md. */
export interface ResultRow {
  scenario: string;
  /** The configuration our side ran with. */
  config: string;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  rss_mb: number;
  baseline: string | null;
  baseline_rps: number | null;
  /** Ours over the baseline; measured in turns, the median of each round's ratio (pairedRatio). */
  ratio: number | null;
  /** CPU per request, µs, medians over the rounds: ours, the baseline's, the database's under each. */
  cpu?: { ours: number; baseline: number; db: number; baselineDb: number };
  /** Our CPU per request over the baseline's, the median of each round's ratio. */
  cpu_ratio?: number;
  target: string;
  goal?: Goal;
  met: boolean | null;
  /** In a summary of several runs: each run's ratio (and CPU ratio), lowest to highest. */
  spread?: { ratio: number[]; cpu_ratio?: number[] };
}

function meets(goal: Goal, ratio: number | null, cpuRatio?: number): boolean {
  if (ratio === null) return false;
  if (goal.ratioAtLeast !== undefined && !(ratio >= goal.ratioAtLeast)) return false;
  if (goal.ratioAtMost !== undefined && !(ratio <= goal.ratioAtMost)) return false;
  if (
    goal.cpuRatioAtMost !== undefined &&
    !(cpuRatio !== undefined && cpuRatio <= goal.cpuRatioAtMost)
  )
    return false;
  return true;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export function row(
  fields: Omit<ResultRow, 'ratio' | 'config' | 'met'> & {
    ratio?: number | null;
    config?: string;
    met?: boolean | null;
  },
): ResultRow {
  const ratio = fields.ratio ?? (fields.baseline_rps ? fields.rps / fields.baseline_rps : null);
  const met = fields.goal ? meets(fields.goal, ratio, fields.cpu_ratio) : (fields.met ?? null);
  return {
    ...fields,
    met,
    config: fields.config ?? SHIPPED_DEFAULTS,
    rps: round(fields.rps, 1),
    p50_ms: round(fields.p50_ms),
    p99_ms: round(fields.p99_ms),
    rss_mb: round(fields.rss_mb, 1),
    baseline_rps: fields.baseline_rps === null ? null : round(fields.baseline_rps, 1),
    ratio: ratio === null ? null : round(ratio),
    ...(fields.cpu_ratio === undefined ? {} : { cpu_ratio: round(fields.cpu_ratio) }),
  };
}

export function progress(message: string): void {
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** `1.91 (1.85–1.97)`: a median and the lowest and highest of the runs it is the median of. */
function withSpread(value: number, runs: number[] | undefined): string {
  if (!runs || runs.length < 2) return String(value);
  return `${value} (${runs[0]}–${runs[runs.length - 1]})`;
}

const HEADER = [
  'scenario',
  'rps',
  'p50 ms',
  'p99 ms',
  'rss MB',
  'baseline',
  'base rps',
  'ratio',
  'cpu µs/req ours / base (db)',
  'cpu ratio',
  'target',
  'met',
];

/**
 * The rows as one Markdown table, laid out as Biome formats Markdown (every
 * column padded to its widest cell), so the same text reads in a terminal and
 * in bench/RESULTS.md. A row's configuration is not a column, since nearly
 * every row runs the shipped defaults: `configurations` names the others.
 */
export function resultTable(rows: ResultRow[]): string {
  const cells = rows.map((r) => [
    r.scenario,
    String(r.rps),
    String(r.p50_ms),
    String(r.p99_ms),
    String(r.rss_mb),
    r.baseline ?? '-',
    r.baseline_rps === null ? '-' : String(r.baseline_rps),
    r.ratio === null ? '-' : withSpread(r.ratio, r.spread?.ratio),
    r.cpu
      ? `${Math.round(r.cpu.ours)} / ${Math.round(r.cpu.baseline)} (${Math.round(r.cpu.db)} / ${Math.round(r.cpu.baselineDb)})`
      : '-',
    r.cpu_ratio === undefined ? '-' : withSpread(r.cpu_ratio, r.spread?.cpu_ratio),
    r.target,
    r.met === null ? '-' : r.met ? 'yes' : 'NO',
  ]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]?.length ?? 0)));
  const line = (values: string[]) =>
    `| ${values.map((v, i) => v.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const rule = `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`;
  return [line(HEADER), rule, ...cells.map(line)].map((l) => `${l}\n`).join('');
}

/** `<scenario>: <config>` for each row that ran other than the shipped defaults. */
export function configurations(rows: ResultRow[]): string[] {
  return rows.filter((r) => r.config !== SHIPPED_DEFAULTS).map((r) => `${r.scenario}: ${r.config}`);
}

export function printTable(rows: ResultRow[]): void {
  const others = configurations(rows).map((line) => `  ${line}\n`);
  process.stdout.write(
    `${resultTable(rows)}${others.length > 0 ? `not at the shipped defaults (${SHIPPED_DEFAULTS}):\n${others.join('')}` : ''}`,
  );
}
