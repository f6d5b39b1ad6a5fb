import { join } from 'node:path';
import { mysqlSettingsFromUrl, mysqlVariables } from '@svc/test-kit';
import { type LoadResult, load } from '../lib/load.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import { repoRoot, startServer } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { median } from '../lib/turns.js';

const USER = { username: 'bench-login', password: 'bench-login-password' };
// The guarded requests' session is another user's: the storm's logins would end
// it as the least recently used once USER reaches SESSION_MAX_PER_USER.
const READER = { username: 'bench-reader', password: 'bench-reader-password' };
const GUARDED_CONNECTIONS = 16;
const LOGIN_CONNECTIONS = 16;

async function startAuth(settings: BenchSettings, scheme: 'random' | 'md5') {
  const auth = await startServer({
    script: join(repoRoot, 'services/auth/dist/main.js'),
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
  await post('/api/user/register');
  await post('/api/user/register', READER);
  const login = (await (await post('/api/user/login', READER)).json()) as {
    data: { token: string };
  };
  return { auth, token: login.data.token };
}

/** Scenario 2: scrypt logins must not hold up guarded requests; login throughput per scheme. */
export async function loginStorm(settings: BenchSettings): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  const d = settings.duration;
  const loginLoad = (url: string) =>
    load({
      url: `${url}/api/user/login`,
      method: 'POST',
      body: JSON.stringify(USER),
      connections: LOGIN_CONNECTIONS,
      duration: d,
    });

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
          const [stormy, logins] = await Promise.all([guarded(), loginLoad(auth.url)]);
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
      const logins = await loginLoad(auth.url);
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
  return rows;
}
