import type { Server } from 'node:http';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Pool } from 'mysql2/promise';
import { collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import { type ListenOptions, listen } from './listen.js';
import { poolCounts } from './mysql-driver.js';

const STARTED = Symbol('metrics started');
type TimedResponse = Response & { [STARTED]: number };

/** Every path no route matched shares this label, so scanners cannot grow the label set. */
const UNMATCHED_ROUTE = 'unmatched';

export interface Metrics {
  registry: Registry;
  /** Counts and times every request by method, route template and status. */
  requests: RequestHandler;
  /** Answers `GET /metrics` from the registry. */
  endpoint: RequestHandler;
}

/**
 * One registry per app (never prom-client's global one, so two apps in one
 * process, as in tests, keep their own counts), with the process's default
 * metrics, the HTTP request metrics and, given a pool, its connections.
 */
export function createMetrics(options: { pool?: Pool } = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const series = requestSeries(registry);
  if (options.pool) poolGauges(registry, options.pool);

  /** The response's `close` listener, one function for every request. */
  function record(this: TimedResponse) {
    const req = this.req as Request;
    const route = req.route ? `${req.baseUrl}${req.route.path}` : UNMATCHED_ROUTE;
    series.observe(req.method, route, this.statusCode, (performance.now() - this[STARTED]) / 1000);
  }

  return {
    registry,
    requests: (_req, res, next) => {
      (res as TimedResponse)[STARTED] = performance.now();
      res.once('close', record);
      next();
    },
    endpoint: async (_req, res) => {
      res.set('Content-Type', registry.contentType);
      res.end(await registry.metrics());
    },
  };
}

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket, not yet cumulative; the last counts those above every bound. */
  buckets: number[];
}

/**
 * `http_requests_total` and `http_request_duration_seconds`, kept in plain
 * numbers per (method, route, status) and turned into Prometheus series only
 * when scraped. prom-client's own Counter and Histogram validate and hash the
 * labels on every call, which cost order create about 5% of its throughput;
 * here a request costs a Map lookup and three additions.
 */
function requestSeries(registry: Registry) {
  const all = new Map<string, Series>();
  const labelled = (s: Series, metricName: string, value: number, extra = {}) => ({
    metricName,
    labels: { ...s.labels, ...extra },
    value,
  });
  /** A metric prom-client's registry prints, whose samples come from `values` at scrape time. */
  const register = (name: string, help: string, type: string, values: () => object[]) => {
    const info = { name, help, type, aggregator: 'sum' };
    registry.registerMetric({
      ...info,
      get: () => ({ ...info, values: values() }),
    } as unknown as Metric);
  };
  register(
    'http_requests_total',
    'Requests answered, by method, route template and status',
    'counter',
    () => [...all.values()].map((s) => labelled(s, 'http_requests_total', s.count)),
  );
  const duration = 'http_request_duration_seconds';
  register(
    duration,
    'Time from a request reaching the app to its answer ending, by method, route template and status',
    'histogram',
    () =>
      [...all.values()].flatMap((s) => {
        let cumulative = 0;
        const buckets = BUCKETS.map((le, i) => {
          cumulative += s.buckets[i] ?? 0;
          return labelled(s, `${duration}_bucket`, cumulative, { le });
        });
        return [
          ...buckets,
          labelled(s, `${duration}_bucket`, s.count, { le: '+Inf' }),
          labelled(s, `${duration}_sum`, s.sum),
          labelled(s, `${duration}_count`, s.count),
        ];
      }),
  );

  return {
    observe(method: string, route: string, status: number, seconds: number) {
      const key = `${method} ${status} ${route}`;
      let s = all.get(key);
      if (!s) {
        s = {
          labels: { method, route, status: String(status) },
          count: 0,
          sum: 0,
          buckets: new Array(BUCKETS.length + 1).fill(0),
        };
        all.set(key, s);
      }
      s.count += 1;
      s.sum += seconds;
      let bucket = 0;
      while (bucket < BUCKETS.length && seconds > (BUCKETS[bucket] as number)) bucket++;
      s.buckets[bucket] = (s.buckets[bucket] ?? 0) + 1;
    },
  };
}

/** The MySQL pool's connections: in use, free, and requests queued for one. */
function poolGauges(registry: Registry, pool: Pool): void {
  new Gauge({
    name: 'mysql_pool_connections',
    help: 'MySQL pool connections by state: in_use, free, and queued (requests waiting for one)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const { all, free, queued } = poolCounts(pool);
      this.set({ state: 'in_use' }, all - free);
      this.set({ state: 'free' }, free);
      this.set({ state: 'queued' }, queued);
    },
  });
}

/**
 * `/metrics` alone, on a listener of its own (METRICS_PORT): the service port
 * then has none. Any other path is a 404 in the service's envelope.
 */
export function serveMetricsOn(metrics: Metrics, options: ListenOptions): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', metrics.endpoint);
  app.use((_req: Request, res: Response) => {
    res.status(404).json(options.envelope(404, 'Not Found'));
  });
  return listen(app, options);
}
