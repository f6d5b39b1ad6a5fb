import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import { performance } from 'node:perf_hooks';
import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { type DelayProxy, mysqlSettingsFromUrl, startDelayProxy } from '../src/index.js';

const delayMs = 20;

/** The fastest of `times` pings on a connection to this address. */
async function fastestPing(host: string, port: number, times = 5): Promise<number> {
  const { database: _, ...server } = mysqlSettingsFromUrl(String(process.env.TEST_MYSQL_URL), '');
  const conn = await mysql.createConnection({ ...server, host, port });
  try {
    let fastest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < times; i++) {
      const started = performance.now();
      await conn.ping();
      fastest = Math.min(fastest, performance.now() - started);
    }
    return fastest;
  } finally {
    await conn.end();
  }
}

/** Sends `data` through the proxy to an echo server in many writes; resolves with what came back. */
function echoThrough(proxy: DelayProxy, data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: proxy.host, port: proxy.port });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
    for (let offset = 0; offset < data.length; offset += 1000)
      socket.write(data.subarray(offset, offset + 1000));
    socket.end();
  });
}

async function echoServer(): Promise<Server> {
  const server = createServer({ allowHalfOpen: true }, (socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('delay proxy', () => {
  it('adds delayMs each way to a round trip to MariaDB', async () => {
    const { host, port } = mysqlSettingsFromUrl(String(process.env.TEST_MYSQL_URL), '');
    const proxy = await startDelayProxy({ target: { host, port }, delayMs });
    try {
      const direct = await fastestPing(host, port);
      const proxied = await fastestPing(proxy.host, proxy.port);
      expect(proxied).toBeGreaterThanOrEqual(2 * delayMs);
      // Both pings pay the server's own time; the fastest direct one may still be a little luckier.
      expect(proxied - direct).toBeGreaterThanOrEqual(2 * delayMs - 1);
      expect(proxied).toBeLessThan(2 * delayMs + 50);
    } finally {
      await proxy.close();
    }
  });

  it('passes bytes unchanged and in order, both ways, then the end', async () => {
    const echo = await echoServer();
    const proxy = await startDelayProxy({
      target: { host: '127.0.0.1', port: (echo.address() as AddressInfo).port },
      delayMs,
    });
    try {
      const data = randomBytes(1_000_000);
      const back = await echoThrough(proxy, data);
      expect(back.length).toBe(data.length);
      expect(back.equals(data)).toBe(true);
    } finally {
      await proxy.close();
      echo.close();
    }
  });

  it('ends every connection through it on close', async () => {
    const echo = await echoServer();
    const proxy = await startDelayProxy({
      target: { host: '127.0.0.1', port: (echo.address() as AddressInfo).port },
      delayMs,
    });
    const socket = connect({ host: proxy.host, port: proxy.port });
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await proxy.close();
    await closed;
    await expect(fastestPing(proxy.host, proxy.port, 1)).rejects.toThrow();
    echo.close();
  });
});
