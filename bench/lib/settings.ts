/** What a run measures with: durations shrink under --quick; stores come from the environment. */
export interface BenchSettings {
  quick: boolean;
  /** Full repetitions of the chosen scenarios; the table gives each figure's median and spread. */
  runs: number;
  /** Scenario names to run; empty: all. */
  only: string[];
  /** Seconds of load per measurement. */
  duration: number;
  /** Seconds of the same load before each measurement, so no JIT is measured cold; none under --quick. */
  warmUp: number;
  mysqlUrl: string;
  redisUrl: string;
}

export function benchSettings(argv: string[]): BenchSettings {
  const quick = argv.includes('--quick');
  const only = argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
  const runs = Number(argv.find((arg) => arg.startsWith('--runs='))?.slice('--runs='.length) ?? 1);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs= takes a whole number from 1');
  return {
    quick,
    runs,
    only: only ? only.split(',') : [],
    duration: quick ? 2 : 5,
    warmUp: quick ? 0 : 1,
    mysqlUrl: process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306',
    redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/15',
  };
}
