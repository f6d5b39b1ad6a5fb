/**
 * `pnpm bench [--quick] [--runs=N] [--only=guard,login,platform,growth,metrics,replica,events,relay,signing,password]`:
 * starts what it needs on loopback, seeds its own data (reused when the size
 * matches), prints a progress line per scenario and a table per run, then with
 * several runs one table of their medians and spreads. The last table is
 * written to bench/results.json and, with the date, command and machine, to
 * bench/RESULTS.md.
 */
import { describeMachine } from './lib/machine.js';
import { printTable, progress, type ResultRow } from './lib/report.js';
import { writeResults } from './lib/results-file.js';
import { benchSettings } from './lib/settings.js';
import { summarize } from './lib/summary.js';
import { eventsCost } from './scenarios/events.js';
import { growth } from './scenarios/growth.js';
import { guardOverhead } from './scenarios/guard.js';
import { loginStorm } from './scenarios/login.js';
import { metricsCost } from './scenarios/metrics-cost.js';
import { passwordCheckCost } from './scenarios/password-check.js';
import { platformLists } from './scenarios/platform-lists.js';
import { relayCost } from './scenarios/relay.js';
import { replicaLists } from './scenarios/replica-lists.js';
import { signingCost } from './scenarios/signing.js';

const args = process.argv.slice(2);
const settings = benchSettings(args);
const started = new Date();
progress(`${settings.quick ? 'quick' : 'full'} run, ${settings.duration} s per measurement`);

const scenarios = {
  guard: guardOverhead,
  login: loginStorm,
  platform: platformLists,
  growth,
  metrics: metricsCost,
  replica: replicaLists,
  events: eventsCost,
  relay: relayCost,
  signing: signingCost,
  password: passwordCheckCost,
};
const runs: ResultRow[][] = [];
for (let run = 1; run <= settings.runs; run++) {
  if (settings.runs > 1) progress(`run ${run} of ${settings.runs}`);
  const rows: ResultRow[] = [];
  for (const [name, scenario] of Object.entries(scenarios)) {
    if (settings.only.length === 0 || settings.only.includes(name))
      rows.push(...(await scenario(settings)));
  }
  printTable(rows);
  runs.push(rows);
}

const rows = settings.runs > 1 ? summarize(runs) : (runs[0] as ResultRow[]);
if (settings.runs > 1) {
  progress(`the medians of ${settings.runs} runs, with each ratio's spread:`);
  printTable(rows);
}
const paths = await writeResults(rows, {
  started,
  finished: new Date(),
  args,
  settings,
  environment: Object.keys(process.env).filter((name) => name.startsWith('BENCH_')),
  machine: await describeMachine(settings),
});
progress(
  `wrote ${paths.join(' and ')} in ${Math.round((Date.now() - started.getTime()) / 1000)} s`,
);
const missed = rows.filter((r) => r.met === false).length;
if (missed > 0) progress(`${missed} target(s) not met`);
