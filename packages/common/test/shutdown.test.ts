import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { shutdownGracefully } from '../src/shutdown.js';
import { testLogs } from './support/test-logs.js';

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function startSlowServer(delayMs: number) {
  const app = express();
  app.get('/slow', async (_req, res) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    res.json({ done: true });
  });
  const server = createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

describe('shutdownGracefully', () => {
  it('finishes in-flight requests, refuses new connections, closes the stores and exits 0', async () => {
    const { server, port } = await startSlowServer(300);
    const events: string[] = [];
    const shutdown = shutdownGracefully(server, {
      graceMs: 5000,
      logger: testLogs().logger,
      close: async () => {
        events.push('closed stores');
      },
      exit: (code) => {
        events.push(`exit ${code}`);
      },
    });
    const inFlight = get(port, '/slow');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopping = shutdown();
    await expect(get(port, '/slow')).rejects.toThrow(/ECONNREFUSED/);
    expect(await inFlight).toEqual({ status: 200, body: '{"done":true}' });
    await stopping;
    expect(events).toEqual(['closed stores', 'exit 0']);
  });

  it('cuts requests that outlive the grace period and still exits 0', async () => {
    const { server, port } = await startSlowServer(10_000);
    const exits: number[] = [];
    const shutdown = shutdownGracefully(server, {
      graceMs: 200,
      logger: testLogs().logger,
      close: async () => {},
      exit: (code) => {
        exits.push(code);
      },
    });
    const inFlight = get(port, '/slow').catch((err: Error) => err.message);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await shutdown();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await inFlight).toMatch(/socket hang up|ECONNRESET/);
    expect(exits).toEqual([0]);
  });
});
