import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Machine } from './machine.js';
import { configurations, type ResultRow, resultTable } from './report.js';
import { repoRoot, SHIPPED_DEFAULTS } from './server.js';
import type { BenchSettings } from './settings.js';

/** What a run was: when, how it was asked for, and on what. */
export interface RunRecord {
  started: Date;
  finished: Date;
  /** The arguments after `pnpm bench`. */
  args: string[];
  settings: Pick<BenchSettings, 'quick' | 'runs' | 'only'>;
  /** Names of the BENCH_* variables set (never their values: a URL may hold a password). */
  environment: string[];
  machine: Machine;
}

const utc = (at: Date) => at.toISOString().replace('T', ' ').slice(0, 19);

/** `2026-11-29 19:48:02 to 20:23:32 UTC`: the second date only when the run passed midnight. */
function span(started: Date, finished: Date): string {
  const [from, to] = [utc(started), utc(finished)];
  return `${from} to ${from.slice(0, 10) === to.slice(0, 10) ? to.slice(11) : to} UTC`;
}

function machineLine({ cpu, cores, memoryGiB, node, mysql, redis }: Machine): string {
  return [
    `${cores} × ${cpu}`,
    `${memoryGiB} GiB memory`,
    `Node ${node}`,
    `database ${mysql ?? 'not reached'}`,
    `Redis ${redis ?? 'not reached'}`,
  ].join(', ');
}

/** Why a run's figures are not the ones to judge the targets by; empty for a full run of three or more. */
function shortcomings({ quick, runs, only }: RunRecord['settings']): string[] {
  return [
    ...(quick ? ['a `--quick` run (2 s measurements, no warm-up)'] : []),
    ...(only.length > 0 ? [`of ${only.join(', ')} only`] : []),
    ...(runs === 1 ? ['one run, so no spread'] : runs < 3 ? [`${runs} runs, not three`] : []),
  ];
}

/** bench/RESULTS.md: the run's date, command and machine, then the one table of its rows. */
export function resultsPage(rows: ResultRow[], run: RunRecord): string {
  const seconds = Math.round((run.finished.getTime() - run.started.getTime()) / 1000);
  const command = ['pnpm bench', ...run.args].join(' ');
  const environment = run.environment.length > 0 ? ` (with ${run.environment.join(', ')} set)` : '';
  const figures =
    run.settings.runs > 1
      ? `the medians of ${run.settings.runs} runs; a ratio's brackets hold the lowest and highest of the runs`
      : 'one run; each ratio is the median of its rounds';
  const caveats = shortcomings(run.settings);
  const others = configurations(rows);
  return [
    '# Benchmark results',
    '',
    '`pnpm bench` writes this page and `bench/results.json` at the end of every run, replacing',
    'the last; edit neither by hand. How the bench measures and how to read a ratio:',
    '[README.md](README.md).',
    '',
    `- When: ${span(run.started, run.finished)} (${seconds} s)`,
    `- Command: \`${command}\`${environment}`,
    `- Machine: ${machineLine(run.machine)}`,
    `- Figures: ${figures}`,
    `- Configuration: the shipped defaults (${SHIPPED_DEFAULTS.replace(/^defaults: /, '')})${others.length > 0 ? ', except:' : ''}`,
    ...others.map((line) => `  - ${line}`),
    "- `cpu µs/req`: CPU per request from `/proc`, ours / the baseline's, and in brackets the database server's under each",
    '',
    ...(caveats.length > 0
      ? [
          `**Not the figures to judge the targets by:** ${caveats.join(', ')}. A full \`pnpm bench --runs=3\` replaces them.`,
          '',
        ]
      : []),
    resultTable(rows).trimEnd(),
    '',
  ].join('\n');
}

/** Writes bench/results.json (the rows) and bench/RESULTS.md (the page); resolves to their paths. */
export async function writeResults(rows: ResultRow[], run: RunRecord): Promise<string[]> {
  const json = join(repoRoot, 'bench', 'results.json');
  const page = join(repoRoot, 'bench', 'RESULTS.md');
  await writeFile(json, `${JSON.stringify(rows, null, 2)}\n`);
  await writeFile(page, resultsPage(rows, run));
  return [json, page];
}
