import { once } from 'node:events';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listen } from '../src/listen.js';

const logger = pino({ level: 'silent' });
const envelope = (code: number, message: string) => ({ code, message });
const options = { port: 0, host: '127.0.0.1', logger, sendIdleTimeoutMs: 60_000, envelope };
let close: (() => void) | undefined;
afterEach(() => {
  close?.();
  vi.restoreAllMocks();
});

describe('listen: socket timeouts', () => {
  it('closes a keep-alive socket idle between requests after the keep-alive timeout, not SEND_IDLE_TIMEOUT_MS', async () => {
    const server = await listen((_req, res) => res.end('ok'), options);
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

describe('listen: an Express app', () => {
  it("makes each request and response with the app's own prototypes, so Express changes neither, for requests at once", async () => {
    const app = express();
    app.get('/', (req, res) => res.end(req.app === app ? 'ok' : 'another app'));
    const server = await listen(app, options);
    close = () => server.close();
    const setPrototypeOf = Object.setPrototypeOf;
    const calls: { made: string; changed: boolean }[] = [];
    vi.spyOn(Object, 'setPrototypeOf').mockImplementation((object, prototype) => {
      if (object instanceof IncomingMessage || object instanceof ServerResponse) {
        const made = object instanceof IncomingMessage ? 'request' : 'response';
        calls.push({ made, changed: Object.getPrototypeOf(object) !== prototype });
      }
      return setPrototypeOf(object, prototype);
    });
    // Requests at once, on several sockets, each with its own objects.
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => fetch(url).then((res) => res.text())),
    );
    expect(answers).toEqual(new Array(8).fill('ok'));
    expect(calls).toEqual(
      Array.from({ length: 8 }, () => [
        { made: 'request', changed: false },
        { made: 'response', changed: false },
      ]).flat(),
    );
  });
});

describe('listen: an Express app served again', () => {
  it('keeps the classes it made the first time', async () => {
    const app = express();
    const first = await listen(app, options);
    const request = app.request;
    const second = await listen(app, options);
    close = () => {
      first.close();
      second.close();
    };
    expect(app.request).toBe(request);
  });
});
