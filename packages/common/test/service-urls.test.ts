import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listeningMessage, serviceUrls } from '../src/service-urls.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

async function listening(host: string): Promise<{ server: Server; port: number }> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('the start-up line', () => {
  it('names the bound port, at localhost for a listener on every address', async () => {
    const { server, port } = await listening('0.0.0.0');
    const urls = serviceUrls(server);
    expect(urls).toEqual({
      url: `http://localhost:${port}`,
      docs: `http://localhost:${port}/docs`,
      metrics: `http://localhost:${port}/metrics`,
    });
    expect(listeningMessage('auth', urls)).toBe(
      `auth listening on http://localhost:${port} (docs http://localhost:${port}/docs, metrics http://localhost:${port}/metrics)`,
    );
  });

  it("names METRICS_PORT's own listener for /metrics, and an IPv6 address in brackets", async () => {
    const service = await listening('::1');
    const metrics = await listening('127.0.0.1');
    expect(serviceUrls(service.server, metrics.server)).toEqual({
      url: `http://[::1]:${service.port}`,
      docs: `http://[::1]:${service.port}/docs`,
      metrics: `http://127.0.0.1:${metrics.port}/metrics`,
    });
  });

  it('says metrics are off when they are', async () => {
    const { server } = await listening('127.0.0.1');
    expect(serviceUrls(server, undefined, false).metrics).toBe('off');
  });
});
