import type { Server } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Pool } from 'mysql2/promise';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type ListenOptions, listen } from './listen.js';

const STARTED = Symbol('metrics started');
type TimedResponse = Response & { [STARTED]: number };

/** Every path no route matched shares this label, so scanners cannot grow the label set. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface Metrics {
  registry: Registry;
  /** Counts and times every request by method, route template and status. */
  requests: RequestHandler;
  /** Answers `GET /metrics` from the registry. */
  endpoint: RequestHandler;
}

interface PoolInternals {
  _allConnections: { length: number };
  _freeConnections: { length: number };
  _connectionQueue: { length: number };
}

/**
 * One registry per app (never prom-client's global one, so two apps in one
 * process, as in tests, keep their own counts), with the process's default
 * metrics, the HTTP request metrics and, given a pool, its connections.
 */
export function createMetrics(options: { pool?: Pool } = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const total = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by method, route template and status',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request reaching the app to its answer ending, by method, route template and status',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  if (options.pool) poolGauges(registry, options.pool);

  // One pair of labelled children per (method, route, status), made once: the
  // hot path is then a Map lookup, an increment and an observation.
  type Label = (typeof labelNames)[number];
  type Children = { count: Counter.Internal; time: Histogram.Internal<Label> };
  const children = new Map<string, Children>();
  function childrenOf(method: string, route: string, status: number): Children {
    const key = `${method} ${status} ${route}`;
    let found = children.get(key);
    if (!found) {
      found = {
        count: total.labels(method, route, String(status)),
        time: duration.labels(method, route, String(status)),
      };
      children.set(key, found);
    }
    return found;
  }

  /** The response's `close` listener, one function for every request. */
  function record(this: TimedResponse) {
    const req = this.req as Request;
    const route = req.route ? `${req.baseUrl}${req.route.path}` : UNMATCHED_ROUTE;
    const { count, time } = childrenOf(req.method, route, this.statusCode);
    count.inc();
    time.observe((performance.now() - this[STARTED]) / 1000);
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

/** The MySQL pool's connections: in use, free, and requests queued for one. */
function poolGauges(registry: Registry, pool: Pool): void {
  const internals = () => (pool as unknown as { pool: PoolInternals }).pool;
  new Gauge({
    name: 'mysql_pool_connections',
    help: 'MySQL pool connections by state: in_use, free, and queued (requests waiting for one)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const { _allConnections, _freeConnections, _connectionQueue } = internals();
      this.set({ state: 'in_use' }, _allConnections.length - _freeConnections.length);
      this.set({ state: 'free' }, _freeConnections.length);
      this.set({ state: 'queued' }, _connectionQueue.length);
    },
  });
}

/** `/metrics` alone, on a listener of its own (METRICS_PORT): the service port then has none. */
export function serveMetricsOn(metrics: Metrics, options: ListenOptions): Promise<Server> {
  return listen((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics') {
      metrics.registry.metrics().then((text) => {
        res.setHeader('Content-Type', metrics.registry.contentType);
        res.end(text);
      });
      return;
    }
    res.statusCode = 404;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ code: 404, message: 'Not Found' }));
  }, options);
}
