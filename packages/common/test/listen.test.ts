import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../src/listen.js';

const logger = pino({ level: 'silent' });
const envelope = (code: number, message: string) => ({ code, message });
let close: (() => void) | undefined;
afterEach(() => close?.());

describe('listen: socket timeouts', () => {
  it('closes a keep-alive socket idle between requests after the keep-alive timeout, not SEND_IDLE_TIMEOUT_MS', async () => {
    const server = await listen((_req, res) => res.end('ok'), {
      port: 0,
      host: '127.0.0.1',
      logger,
      sendIdleTimeoutMs: 60_000,
      envelope,
    });
    close = () => server.close();
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    await once(socket, 'data');
    const answered = Date.now();
    socket.resume();
    await once(socket, 'close');
    const idleMs = Date.now() - answered;
    expect(idleMs).toBeGreaterThanOrEqual(server.keepAliveTimeout - 100);
    expect(idleMs).toBeLessThan(server.keepAliveTimeout + 2000);
  }, 15_000);
});
