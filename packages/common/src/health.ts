import { Router } from 'express';
import type { AnswerBody } from './answer-body.js';

/** A probe that resolves while its store answers. */
type ReadinessCheck = () => Promise<unknown>;

const CHECK_TIMEOUT_MS = 2000;

function withTimeout(check: ReadinessCheck): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  return Promise.race([check(), timeout]).finally(() => clearTimeout(timer));
}

interface HealthOptions {
  /** The service's envelope for both probes' answers. */
  envelope: AnswerBody;
  /** The text of a 503 from /readyz. */
  notReady: string;
  /** Shown as `warnings` in /readyz's data, ready or not: what start-up found amiss. */
  warnings?: string[];
  /** Shown in /readyz's data under their names, without bearing on readiness: a background task's state. */
  states?: Record<string, () => string>;
}

/**
 * GET /healthz (the process runs) and GET /readyz (every store answers, else
 * 503 with the service's `notReady` text), each store's state as the data.
 */
export function healthRouter(
  checks: Record<string, ReadinessCheck>,
  { envelope, notReady, warnings = [], states = {} }: HealthOptions,
): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json(envelope(200, 'ok', { status: 'up' }));
  });
  router.get('/readyz', async (_req, res) => {
    const names = Object.keys(checks);
    const results = await Promise.allSettled(names.map((name) => withTimeout(checks[name]!)));
    const data: Record<string, unknown> = Object.fromEntries(
      names.map((name, i) => [name, results[i]?.status === 'fulfilled' ? 'up' : 'down']),
    );
    for (const [name, state] of Object.entries(states)) data[name] = state();
    if (warnings.length > 0) data.warnings = warnings;
    const ready = results.every((result) => result.status === 'fulfilled');
    if (ready) res.json(envelope(200, 'ok', data));
    else res.status(503).json(envelope(503, notReady, data));
  });
  return router;
}
