import { type ResultRow, row } from './report.js';
import { median } from './turns.js';

/**
 * One table of several full runs: every figure the median of the runs, each
 * ratio with its spread (every run's value), and a target judged on the
 * medians, so no single good run decides it.
 */
export function summarize(runs: ResultRow[][]): ResultRow[] {
  return (runs[0] ?? []).map((first) => {
    const same = runs.flatMap((rows) => rows.filter((r) => r.scenario === first.scenario));
    const mid = (pick: (r: ResultRow) => number) => median(same.map(pick));
    const ratios = same.flatMap((r) => (r.ratio === null ? [] : [r.ratio])).sort((a, b) => a - b);
    const cpuRatios = same
      .flatMap((r) => (r.cpu_ratio === undefined ? [] : [r.cpu_ratio]))
      .sort((a, b) => a - b);
    const ratio = ratios.length > 0 ? median(ratios) : null;
    const cpuRatio = cpuRatios.length > 0 ? median(cpuRatios) : undefined;
    const cpu = first.cpu && {
      ours: mid((r) => r.cpu?.ours ?? 0),
      baseline: mid((r) => r.cpu?.baseline ?? 0),
      db: mid((r) => r.cpu?.db ?? 0),
      baselineDb: mid((r) => r.cpu?.baselineDb ?? 0),
    };
    // A row with a goal is judged on the medians (row() does it); one without, only if every run met it.
    const everyRun = same.every((r) => r.met === true);
    return {
      ...row({
        ...first,
        rps: mid((r) => r.rps),
        p50_ms: mid((r) => r.p50_ms),
        p99_ms: mid((r) => r.p99_ms),
        rss_mb: mid((r) => r.rss_mb),
        baseline_rps: first.baseline_rps === null ? null : mid((r) => r.baseline_rps ?? 0),
        ratio,
        ...(cpu ? { cpu } : {}),
        ...(cpuRatio === undefined ? {} : { cpu_ratio: cpuRatio }),
        met: first.met === null ? null : everyRun,
      }),
      spread: { ratio: ratios, ...(cpuRatios.length > 0 ? { cpu_ratio: cpuRatios } : {}) },
    };
  });
}
