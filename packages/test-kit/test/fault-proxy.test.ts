import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import { performance } from 'node:perf_hooks';
import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { type FaultProxy, mysqlSettingsFromUrl, startFaultProxy } from '../src/index.js';

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
function echoThrough(proxy: FaultProxy, data: Buffer): Promise<Buffer> {
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

describe('fault proxy: delays', () => {
  it('adds delayMs each way to a round trip to MariaDB', async () => {
    const { host, port } = mysqlSettingsFromUrl(String(process.env.TEST_MYSQL_URL), '');
    const proxy = await startFaultProxy({ target: { host, port }, delayMs });
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
    const proxy = await startFaultProxy({
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
    const proxy = await startFaultProxy({
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

const server = () => {
  const { database: _, ...settings } = mysqlSettingsFromUrl(String(process.env.TEST_MYSQL_URL), '');
  return settings;
};

/** A table of this test's own, and a connection through `proxy`. */
async function throughProxy(proxy: FaultProxy, table: string) {
  const direct = await mysql.createConnection(server());
  await direct.query('CREATE DATABASE IF NOT EXISTS fault_proxy');
  await direct.query(`CREATE TABLE IF NOT EXISTS fault_proxy.${table} (id INT PRIMARY KEY)`);
  const proxied = await mysql.createConnection({ ...server(), host: proxy.host, port: proxy.port });
  proxied.on('error', () => {});
  const rows = async () => {
    const [found] = await direct.query<mysql.RowDataPacket[]>(
      `SELECT COUNT(*) AS n FROM fault_proxy.${table}`,
    );
    return Number(found[0]?.n);
  };
  return { direct, proxied, rows };
}

describe('fault proxy: faults', () => {
  it('cut-before: the matching request never reaches the server, and both sides are reset', async () => {
    const { host, port } = server();
    const proxy = await startFaultProxy({ target: { host, port } });
    const { direct, proxied, rows } = await throughProxy(proxy, 'cut_before');
    try {
      await proxied.query('SELECT 1');
      const fault = proxy.fault('INSERT INTO fault_proxy.cut_before', 'cut-before');
      await expect(
        proxied.query('INSERT INTO fault_proxy.cut_before VALUES (1)'),
      ).rejects.toThrow();
      await fault.met;
      expect(await rows()).toBe(0);
      await expect(proxied.query('SELECT 1')).rejects.toThrow();
    } finally {
      await direct.end();
      await proxy.close();
    }
  });

  it('cut-after: the server does the work, its answer is lost', async () => {
    const { host, port } = server();
    const proxy = await startFaultProxy({ target: { host, port } });
    const { direct, proxied, rows } = await throughProxy(proxy, 'cut_after');
    try {
      const fault = proxy.fault('INSERT INTO fault_proxy.cut_after', 'cut-after', {
        settleMs: 100,
      });
      const began = performance.now();
      await expect(proxied.query('INSERT INTO fault_proxy.cut_after VALUES (1)')).rejects.toThrow();
      expect(performance.now() - began).toBeGreaterThanOrEqual(90);
      await fault.met;
      expect(await rows()).toBe(1);
    } finally {
      await direct.end();
      await proxy.close();
    }
  });

  it('stall: holds the request and its answer until released, then passes both in order', async () => {
    const { host, port } = server();
    const proxy = await startFaultProxy({ target: { host, port } });
    const { direct, proxied, rows } = await throughProxy(proxy, 'stall');
    try {
      const fault = proxy.fault('INSERT INTO fault_proxy.stall', 'stall');
      const insert = proxied.query('INSERT INTO fault_proxy.stall VALUES (1)');
      await fault.met;
      const answered = await Promise.race([
        insert.then(() => true),
        new Promise((resolve) => setTimeout(() => resolve(false), 200)),
      ]);
      expect(answered).toBe(false);
      fault.release();
      await insert;
      expect(await rows()).toBe(1);
      const [[again]] = await proxied.query<mysql.RowDataPacket[]>('SELECT 2 AS two');
      expect(again?.two).toBe(2);
    } finally {
      await direct.end();
      await proxy.close();
    }
  });

  it('a stall cut: the client sees its connection reset', async () => {
    const { host, port } = server();
    const proxy = await startFaultProxy({ target: { host, port } });
    const { direct, proxied } = await throughProxy(proxy, 'stall_cut');
    try {
      const fault = proxy.fault('SELECT 3', 'stall');
      const query = proxied.query('SELECT 3');
      await fault.met;
      fault.cut();
      await expect(query).rejects.toThrow();
    } finally {
      await direct.end();
      await proxy.close();
    }
  });

  it('refuse and cutAll: a store gone for new and open connections', async () => {
    const { host, port } = server();
    const proxy = await startFaultProxy({ target: { host, port } });
    const { direct, proxied } = await throughProxy(proxy, 'gone');
    try {
      proxy.refuse(true);
      proxy.cutAll();
      await expect(proxied.query('SELECT 1')).rejects.toThrow();
      await expect(
        mysql.createConnection({ ...server(), host: proxy.host, port: proxy.port }),
      ).rejects.toThrow();
      proxy.refuse(false);
      const again = await mysql.createConnection({
        ...server(),
        host: proxy.host,
        port: proxy.port,
      });
      await again.query('SELECT 1');
      await again.end();
    } finally {
      await direct.end();
      await proxy.close();
    }
  });
});

describe('fault proxy: a prepared statement', () => {
  it('next: meets the execution that follows the statement prepared by the matching chunk', async () => {
    const { host, port } = server();
    const proxy = await startFaultProxy({ target: { host, port } });
    const { direct, proxied, rows } = await throughProxy(proxy, 'prepared');
    try {
      const fault = proxy.fault('INSERT INTO fault_proxy.prepared', 'cut-after', { next: true });
      await expect(
        proxied.execute('INSERT INTO fault_proxy.prepared VALUES (?)', [1]),
      ).rejects.toThrow();
      await fault.met;
      expect(await rows()).toBe(1);
    } finally {
      await direct.end();
      await proxy.close();
    }
  });
});
