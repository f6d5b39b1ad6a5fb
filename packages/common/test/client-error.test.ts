import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../src/listen.js';

const logger = pino({ level: 'silent' });
/** A service's own envelope: common writes whatever body the service gives it. */
const envelope = (status: number, reason: string) => ({ status, reason, ok: false });
let close: (() => void) | undefined;
afterEach(() => close?.());

/** Everything the server writes on one connection that sends `bytes`, until it closes. */
async function exchange(port: number, bytes: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk;
  });
  socket.write(bytes);
  await once(socket, 'close');
  return received;
}

describe('requests Node cannot parse', () => {
  it('answer after the request before them on the same connection has had its answer', async () => {
    // The first request's answer is not ready yet when the garbage behind it arrives.
    const server = await listen(
      (_req, res) => {
        setTimeout(() => res.setHeader('content-type', 'application/json').end('{"ok":true}'), 50);
      },
      { port: 0, host: '127.0.0.1', logger, sendIdleTimeoutMs: 5000, envelope },
    );
    close = () => server.close();
    const received = await exchange(
      (server.address() as AddressInfo).port,
      'POST /orders HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}' + 'GARBAGE\r\n\r\n',
    );
    const first = received.indexOf('HTTP/1.1 200 OK');
    const second = received.indexOf('HTTP/1.1 400 Bad Request');
    expect(first).toBe(0);
    expect(received).toContain('{"ok":true}');
    expect(second).toBeGreaterThan(first);
    expect(received.slice(second)).toMatch(
      /\r\n\r\n\{"status":400,"reason":"Bad Request","ok":false\}$/,
    );
  });

  it('answer at once on a connection with nothing in flight', async () => {
    const server = await listen((_req, res) => res.end('ok'), {
      port: 0,
      host: '127.0.0.1',
      logger,
      sendIdleTimeoutMs: 5000,
      envelope,
    });
    close = () => server.close();
    const received = await exchange((server.address() as AddressInfo).port, 'GARBAGE\r\n\r\n');
    expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(received).toMatch(/\r\n\r\n\{"status":400,"reason":"Bad Request","ok":false\}$/);
  });
});
