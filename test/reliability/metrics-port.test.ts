import {
  createTestDatabase,
  createTestRedis,
  freePort,
  mysqlVariables,
  parsePrometheusText,
  sampleValue,
} from '@svc/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from './support/service-process.js';

let running: ServiceProcess[] = [];
afterEach(async () => {
  await Promise.all(running.map((service) => service.stop()));
  running = [];
});

async function start(name: 'auth' | 'platform', env: Record<string, string>) {
  const stores: Record<string, string> = mysqlVariables((await createTestDatabase()).settings);
  if (name === 'auth') stores.REDIS_URL = (await createTestRedis()).url;
  const service = await startService(name, { ...stores, ...env });
  running.push(service);
  return service;
}

describe.each(['auth', 'platform'] as const)('%s: where /metrics is served', (name) => {
  it('on the service port by default', async () => {
    const service = await start(name, {});
    await fetch(`${service.url}/healthz`);
    const res = await fetch(`${service.url}/metrics`);
    expect(res.status).toBe(200);
    const samples = parsePrometheusText(await res.text());
    expect(
      sampleValue(samples, 'http_requests_total', {
        method: 'GET',
        route: '/healthz',
        status: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('with METRICS_PORT, only there, on a listener of its own', async () => {
    const port = await freePort();
    const service = await start(name, { METRICS_PORT: String(port) });
    await fetch(`${service.url}/healthz`);
    expect((await fetch(`${service.url}/metrics`)).status).toBe(404);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const samples = parsePrometheusText(await res.text());
    expect(
      sampleValue(samples, 'http_requests_total', {
        method: 'GET',
        route: '/healthz',
        status: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(404);
    expect(service.output()).toContain(
      `${name} listening on ${service.url} (docs ${service.url}/docs, metrics http://127.0.0.1:${port}/metrics)`,
    );
  });

  it('not at all with METRICS_ENABLED=false', async () => {
    const service = await start(name, { METRICS_ENABLED: 'false' });
    expect((await fetch(`${service.url}/metrics`)).status).toBe(404);
    expect(service.output()).toContain(
      `${name} listening on ${service.url} (docs ${service.url}/docs, metrics off)`,
    );
  });
});
