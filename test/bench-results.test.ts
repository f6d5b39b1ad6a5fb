import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ResultRow, row } from '../bench/lib/report.js';
import { type RunRecord, resultsPage } from '../bench/lib/results-file.js';
import { summarize } from '../bench/lib/summary.js';

const root = join(import.meta.dirname, '..');

/** One run's rows: a create against a baseline with a CPU goal, and a figure only reported. */
const runOf = (ratio: number, cpuRatio: number, deliveries: number): ResultRow[] => [
  row({
    scenario: 'events: order create (with its event)',
    rps: 6000 * ratio,
    p50_ms: 2,
    p99_ms: 6.5,
    rss_mb: 240,
    baseline: "old server's plain create (no events, no keys)",
    baseline_rps: 6000,
    cpu: { ours: 60, baseline: 60 / cpuRatio, db: 38, baselineDb: 93 },
    cpu_ratio: cpuRatio,
    target: '>= 1.75x rps, <= 0.55x cpu/req',
    goal: { ratioAtLeast: 1.75, cpuRatioAtMost: 0.55 },
  }),
  row({
    scenario: 'events: webhook deliveries to one receiver (events/s)',
    config: 'defaults, WEBHOOK_ALLOW_PRIVATE=true (the receiver is on loopback)',
    rps: deliveries,
    p50_ms: 0,
    p99_ms: 0,
    rss_mb: 243,
    baseline: null,
    baseline_rps: null,
    target: 'reported',
  }),
];

const machine: RunRecord['machine'] = {
  cpu: 'AMD EPYC',
  cores: 2,
  memoryGiB: 23.5,
  node: 'v24.22.0',
  mysql: '10.11.6-MariaDB',
  redis: '7.0.15',
};

const fullRun: RunRecord = {
  started: new Date('2026-11-29T19:48:02Z'),
  finished: new Date('2026-11-29T20:23:32Z'),
  args: ['--runs=3'],
  settings: { quick: false, runs: 3, only: [] },
  environment: [],
  machine,
};

const summary = summarize([
  runOf(2.08, 0.45, 2937),
  runOf(1.78, 0.52, 2446),
  runOf(1.96, 0.47, 3307),
]);
const lines = (page: string) => page.split('\n');

describe('bench/RESULTS.md, as pnpm bench writes it', () => {
  it('says when the run was, how it was asked for and on what machine', () => {
    const page = resultsPage(summary, fullRun);
    expect(lines(page)).toEqual(
      expect.arrayContaining([
        '- When: 2026-11-29 19:48:02 to 20:23:32 UTC (2130 s)',
        '- Command: `pnpm bench --runs=3`',
        '- Machine: 2 × AMD EPYC, 23.5 GiB memory, Node v24.22.0, database 10.11.6-MariaDB, Redis 7.0.15',
        "- Figures: the medians of 3 runs; a ratio's brackets hold the lowest and highest of the runs",
        '- Configuration: the shipped defaults (LOG_LEVEL=info to a file, metrics on), except:',
        '  - events: webhook deliveries to one receiver (events/s): defaults, WEBHOOK_ALLOW_PRIVATE=true (the receiver is on loopback)',
      ]),
    );
  });

  it('names only the rows that ran other than the shipped defaults', () => {
    const defaultsOnly = lines(resultsPage(summary.slice(0, 1), fullRun));
    expect(defaultsOnly).toContain(
      '- Configuration: the shipped defaults (LOG_LEVEL=info to a file, metrics on)',
    );
    expect(defaultsOnly.filter((l) => l.startsWith('  - '))).toEqual([]);
  });

  it('gives each row the medians of the runs, each ratio with its spread, judged on the medians', () => {
    const create = lines(resultsPage(summary, fullRun)).find((l) =>
      l.startsWith('| events: order create'),
    );
    const cells = create?.split('|').map((cell) => cell.trim());
    // scenario, rps, p50, p99, rss, baseline, base rps, ratio, cpu, cpu ratio, target, met
    expect(cells?.slice(1, -1)).toEqual([
      'events: order create (with its event)',
      '11760',
      '2',
      '6.5',
      '240',
      "old server's plain create (no events, no keys)",
      '6000',
      '1.96 (1.78–2.08)',
      '60 / 128 (38 / 93)',
      '0.47 (0.45–0.52)',
      '>= 1.75x rps, <= 0.55x cpu/req',
      'yes',
    ]);
  });

  it('names no shortcoming of a full run of three, and every one of a quick, partial, single run', () => {
    expect(resultsPage(summary, fullRun)).not.toContain('Not the figures');
    const quick = resultsPage(runOf(1.5, 0.6, 100), {
      ...fullRun,
      args: ['--quick', '--only=events'],
      settings: { quick: true, runs: 1, only: ['events'] },
      environment: ['BENCH_COMPARE_ROOT'],
      machine: { ...machine, mysql: null },
    });
    expect(lines(quick)).toEqual(
      expect.arrayContaining([
        '- Command: `pnpm bench --quick --only=events` (with BENCH_COMPARE_ROOT set)',
        '- Machine: 2 × AMD EPYC, 23.5 GiB memory, Node v24.22.0, database not reached, Redis 7.0.15',
        '**Not the figures to judge the targets by:** a `--quick` run (2 s measurements, no warm-up), of events only, one run, so no spread. A full `pnpm bench --runs=3` replaces them.',
      ]),
    );
    expect(quick).toContain('| NO  |');
  });

  it('is laid out as Biome formats Markdown, so pnpm lint passes on the file a run leaves', () => {
    const page = resultsPage(summary, fullRun);
    const formatted = execFileSync(
      join(root, 'node_modules/.bin/biome'),
      ['format', '--stdin-file-path=bench/RESULTS.md'],
      { cwd: root, input: page, encoding: 'utf8' },
    );
    expect(formatted).toBe(page);
  });
});
