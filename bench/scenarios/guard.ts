import { join } from 'node:path';
import { load } from '../lib/load.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import { type RunningServer, repoRoot, startServer } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { inTurns, pairedRatio } from '../lib/turns.js';

const CONNECTIONS = 64;

async function measure(
  app: RunningServer,
  path: string,
  headers: Record<string, string>,
  { duration, warmUp }: BenchSettings,
) {
  const request = { url: app.url + path, connections: CONNECTIONS, headers };
  if (warmUp > 0) await load({ ...request, duration: warmUp });
  app.resetPeak();
  const result = await load({ ...request, duration });
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(`${path}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  }
  return { ...result, rss: app.peakRssMb() };
}

/** Scenario 1: what the guard costs, against no check and against express-session. */
export async function guardOverhead(settings: BenchSettings): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  for (const scheme of ['random', 'md5'] as const) {
    progress(`guard overhead (${scheme}): GET /api/user/me at ${CONNECTIONS} connections`);
    const app = await startServer({
      script: join(repoRoot, 'bench/apps/guard-app.ts'),
      typescript: true,
      env: { REDIS_URL: settings.redisUrl, TOKEN_SCHEME: scheme },
    });
    try {
      const { token } = (await (
        await fetch(`${app.url}/bench/token`, { method: 'POST' })
      ).json()) as {
        token: string;
      };
      const login = await fetch(`${app.url}/session/login`, { method: 'POST' });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const [unguarded, guarded, sessions] = await inTurns(settings.quick ? 1 : 3, [
        () => measure(app, '/unguarded/me', {}, settings),
        () => measure(app, '/api/user/me', { authorization: `Bearer ${token}` }, settings),
        () => measure(app, '/session/me', { cookie }, settings),
      ]);
      if (!unguarded || !guarded || !sessions) throw new Error('guard measurements missing');
      progress(
        `  guarded ${guarded.rps.toFixed(0)} rps, unguarded ${unguarded.rps.toFixed(0)} rps, express-session ${sessions.rps.toFixed(0)} rps`,
      );
      const common = {
        rps: guarded.rps,
        p50_ms: guarded.p50,
        p99_ms: guarded.p99,
        rss_mb: guarded.rss,
      };
      rows.push(
        row({
          scenario: `guard (${scheme}): GET /api/user/me`,
          ...common,
          baseline: 'same app, unguarded route',
          baseline_rps: unguarded.rps,
          ratio: pairedRatio(guarded, unguarded),
          target: '>= 0.8x',
          goal: { ratioAtLeast: 0.8 },
        }),
        row({
          scenario: `guard (${scheme}) vs express-session`,
          ...common,
          baseline: 'express-session + connect-redis',
          baseline_rps: sessions.rps,
          ratio: pairedRatio(guarded, sessions),
          target: '>= 1.2x',
          goal: { ratioAtLeast: 1.2 },
        }),
      );
    } finally {
      await app.stop();
    }
  }
  return rows;
}
