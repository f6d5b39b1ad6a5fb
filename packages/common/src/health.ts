import { Router } from 'express';

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

/**
 * GET /healthz (the process runs) and GET /readyz (every store answers, else
 * 503 with the service's `notReadyMessage`).
 */
export function healthRouter(
  checks: Record<string, ReadinessCheck>,
  notReadyMessage: string,
): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ code: 200, message: 'ok', data: { status: 'up' } });
  });
  router.get('/readyz', async (_req, res) => {
    const names = Object.keys(checks);
    const results = await Promise.allSettled(names.map((name) => withTimeout(checks[name]!)));
    const data = Object.fromEntries(
      names.map((name, i) => [name, results[i]?.status === 'fulfilled' ? 'up' : 'down']),
    );
    const ready = results.every((result) => result.status === 'fulfilled');
    if (ready) res.json({ code: 200, message: 'ok', data });
    else res.status(503).json({ code: 503, message: notReadyMessage, data });
  });
  return router;
}
