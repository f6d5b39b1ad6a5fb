import { join } from 'node:path';
import { mysqlSettingsFromUrl, mysqlVariables } from '@svc/test-kit';
import { type LoadResult, load } from '../lib/load.js';
import { mysqldCpu } from '../lib/mysqld.js';
import { mysqlServerFrom } from '../lib/platform-data.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import { repoRoot, spentSince, startServer } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { inTurns, type Measured, median, pairedCpuRatio, pairedRatio } from '../lib/turns.js';

// Passwords a register takes (none holds its username); the names are new ones,
// since bench_auth keeps the accounts of earlier runs under their old passwords.
const USER = { username: 'bench-storm', password: 'storm-copper-kettle-7' };
// The guarded requests' session is another user's: the storm's logins would end
// it as the least recently used once USER reaches SESSION_MAX_PER_USER.
const READER = { username: 'bench-guarded', password: 'reader-amber-lamp-3' };
const GUARDED_CONNECTIONS = 16;
const LOGIN_CONNECTIONS = 16;

/** The auth service of this checkout, or of `root` (BENCH_COMPARE_ROOT), its users registered. */
async function startAuth(settings: BenchSettings, scheme: 'random' | 'md5', root = repoRoot) {
  const auth = await startServer({
    script: join(root, 'services/auth/dist/main.js'),
    env: {
      ...mysqlVariables(mysqlSettingsFromUrl(settings.mysqlUrl, 'bench_auth')),
      REDIS_URL: settings.redisUrl,
      TOKEN_SCHEME: scheme,
      // One bench client logs in as one user from one address, in parallel: neither the
      // pair's nor the username's limit may hold back its checks in flight.
      LOGIN_MAX_FAILURES: '10000',
      ACCOUNT_MAX_FAILURES: '10000',
    },
  });
  const post = (path: string, account = USER) =>
    fetch(auth.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    });
  for (const account of [USER, READER]) {
    const { status } = await post('/api/user/register', account);
    // 409: the account of an earlier run.
    if (status !== 200 && status !== 409) throw new Error(`login: register answered ${status}`);
  }
  const login = (await (await post('/api/user/login', READER)).json()) as {
    data: { token: string };
  };
  return { auth, token: login.data.token };
}

const loginLoad = (url: string, duration: number) =>
  load({
    url: `${url}/api/user/login`,
    method: 'POST',
    body: JSON.stringify(USER),
    connections: LOGIN_CONNECTIONS,
    duration,
  });

/** Logins of USER (no second factor) on `auth`, after a warm-up: their rate and the CPU each cost it. */
async function measureLogins(
  auth: Awaited<ReturnType<typeof startAuth>>['auth'],
  settings: BenchSettings,
  dbCpu: () => Promise<number>,
): Promise<Measured> {
  if (settings.warmUp > 0) await loginLoad(auth.url, settings.warmUp);
  auth.resetPeak();
  const [spentOurs, spentDb] = [await spentSince(() => auth.cpuSeconds()), await spentSince(dbCpu)];
  const result = await loginLoad(auth.url, settings.duration);
  const [cpu, db] = [await spentOurs(), await spentDb()];
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`logins: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  }
  const perLogin = (seconds: number) => (seconds * 1e6) / result.requests;
  return { ...result, rss: auth.peakRssMb(), cpuUs: perLogin(cpu), dbCpuUs: perLogin(db) };
}

/**
 * BENCH_COMPARE_ROOT: the login of a user without a second factor on this
 * checkout against the same on another (say, main before a change), in turns.
 */
async function loginAgainstEarlier(settings: BenchSettings, compareRoot: string) {
  progress('login (random) against BENCH_COMPARE_ROOT');
  const ours = await startAuth(settings, 'random');
  const earlier = await startAuth(settings, 'random', compareRoot);
  const dbCpu = await mysqldCpu(mysqlServerFrom(settings.mysqlUrl));
  try {
    const [mine, theirs] = await inTurns(settings.quick ? 1 : 3, [
      () => measureLogins(ours.auth, settings, dbCpu),
      () => measureLogins(earlier.auth, settings, dbCpu),
    ]);
    if (!mine || !theirs) throw new Error('login: measurements missing');
    progress(
      `  ours ${mine.rps.toFixed(1)} logins/s (${mine.cpuUs?.toFixed(0)} us cpu) vs ${theirs.rps.toFixed(1)} (${theirs.cpuUs?.toFixed(0)} us)`,
    );
    return row({
      scenario: 'login (random, no second factor), against BENCH_COMPARE_ROOT',
      rps: mine.rps,
      p50_ms: mine.p50,
      p99_ms: mine.p99,
      rss_mb: mine.rss,
      baseline: 'BENCH_COMPARE_ROOT (the same logins, another checkout)',
      baseline_rps: theirs.rps,
      ratio: pairedRatio(mine, theirs),
      cpu: {
        ours: mine.cpuUs ?? 0,
        baseline: theirs.cpuUs ?? 0,
        db: mine.dbCpuUs ?? 0,
        baselineDb: theirs.dbCpuUs ?? 0,
      },
      cpu_ratio: pairedCpuRatio(mine, theirs),
      target: ">= 0.9x rps (no slower, within the pairs' noise)",
      goal: { ratioAtLeast: 0.9 },
    });
  } finally {
    await Promise.all([ours.auth.stop(), earlier.auth.stop()]);
  }
}

/** Scenario 2: scrypt logins must not hold up guarded requests; login throughput per scheme. */
export async function loginStorm(settings: BenchSettings): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  const d = settings.duration;

  for (const scheme of ['random', 'md5'] as const) {
    const { auth, token } = await startAuth(settings, scheme);
    try {
      const guarded = (duration = d) =>
        load({
          url: `${auth.url}/api/user/me`,
          headers: { authorization: `Bearer ${token}` },
          connections: GUARDED_CONNECTIONS,
          duration,
        });
      if (scheme === 'random') {
        progress('login storm (random): guarded p99 without and with a storm of logins');
        if (settings.warmUp > 0) await guarded(settings.warmUp);
        auth.resetPeak();
        // Calm, then stormy, in rounds: the growth of each round, and their median.
        const rounds: { calm: LoadResult; stormy: LoadResult; logins: LoadResult }[] = [];
        for (let round = 0; round < (settings.quick ? 1 : 3); round++) {
          const calm = await guarded();
          const [stormy, logins] = await Promise.all([guarded(), loginLoad(auth.url, d)]);
          rounds.push({ calm, stormy, logins });
          progress(
            `  guarded p99 ${calm.p99} ms calm, ${stormy.p99} ms during ${logins.rps.toFixed(0)} logins/s`,
          );
        }
        const growth = median(rounds.map((r) => r.stormy.p99 / Math.max(r.calm.p99, 1)));
        const mean = (pick: (r: (typeof rounds)[number]) => number) =>
          rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
        rows.push(
          row({
            scenario: 'login storm (random): guarded GET /api/user/me',
            rps: mean((r) => r.stormy.rps),
            p50_ms: mean((r) => r.stormy.p50),
            p99_ms: mean((r) => r.stormy.p99),
            rss_mb: auth.peakRssMb(),
            baseline: 'same requests without the storm',
            baseline_rps: mean((r) => r.calm.rps),
            ratio: growth,
            target: 'p99 <= 2x calm p99 (median of 3 rounds)',
            goal: { ratioAtMost: 2 },
          }),
        );
      }
      progress(`login throughput (${scheme})`);
      auth.resetPeak();
      const logins = await loginLoad(auth.url, d);
      if (logins.non2xx > 0 || logins.errors > 0) {
        throw new Error(`logins: ${logins.errors} errors, ${logins.non2xx} non-2xx answers`);
      }
      rows.push(
        row({
          scenario: `login throughput (${scheme})`,
          rps: logins.rps,
          p50_ms: logins.p50,
          p99_ms: logins.p99,
          rss_mb: auth.peakRssMb(),
          baseline: null,
          baseline_rps: null,
          target: 'reported',
          met: null,
        }),
      );
    } finally {
      await auth.stop();
    }
  }
  const compareRoot = process.env.BENCH_COMPARE_ROOT;
  if (compareRoot) rows.push(await loginAgainstEarlier(settings, compareRoot));
  return rows;
}
