import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyFaultOf } from '../src/http.js';
import { jsonBodyParser } from '../src/json-body.js';

/**
 * One app, two routes: /lean reads bodies with jsonBodyParser, /reference with
 * express.json() alone. Each answers what it read, or the error it got.
 */
let fallbackCalls = 0;
const reference = express.json({ limit: '1kb' });
const counted: RequestHandler = (req, res, next) => {
  fallbackCalls += 1;
  reference(req, res, next);
};
const errors: { route: string; type: unknown }[] = [];
const app = express();
app.post('/lean', jsonBodyParser(1, counted), (req, res) => res.json({ body: req.body ?? null }));
app.post('/reference', reference, (req, res) => res.json({ body: req.body ?? null }));
const answerFault: ErrorRequestHandler = (err, req, res, _next) => {
  errors.push({ route: req.path, type: err.type });
  res.status(299).json({ fault: bodyFaultOf(err) ?? null, type: err.type ?? null });
};
app.use(answerFault);

let server: ReturnType<typeof app.listen>;
let port: number;
beforeAll(async () => {
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Sends `body` with `headers` and Content-Length over a connection of its own; resolves with the answer. */
function post(path: string, headers: Record<string, string>, body: Buffer | string) {
  const bytes = Buffer.from(body);
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()),
        }),
      );
    });
    req.on('error', reject);
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.setHeader('Content-Length', bytes.length);
    req.end(bytes);
  });
}

/** The same request to both routes: their answers must be equal; returns /lean's, and whether it used express.json(). */
async function both(headers: Record<string, string>, body: Buffer | string) {
  const before = fallbackCalls;
  const lean = await post('/lean', headers, body);
  const delegated = fallbackCalls > before;
  expect(lean, String(body)).toEqual(await post('/reference', headers, body));
  return { ...lean, delegated };
}

const JSON_TYPE = { 'Content-Type': 'application/json' };

describe('jsonBodyParser', () => {
  it('reads plain JSON in UTF-8 itself, as express.json() does', async () => {
    const read = await both(JSON_TYPE, '{"service_id":7,"user_name":"压测用户","n":[1,2.5,null]}');
    expect(read).toEqual({
      status: 200,
      body: { body: { service_id: 7, user_name: '压测用户', n: [1, 2.5, null] } },
      delegated: false,
    });
    for (const type of ['application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
      expect((await both({ 'Content-Type': type }, '[1]')).delegated).toBe(false);
    }
  });

  it('drops a leading BOM, takes whitespace first, and refuses what is not an object or array', async () => {
    expect((await both(JSON_TYPE, '\uFEFF{"a":1}')).body).toEqual({ body: { a: 1 } });
    expect((await both(JSON_TYPE, ' \r\n\t{"a":1} ')).body).toEqual({ body: { a: 1 } });
    expect((await both(JSON_TYPE, '\uFEFF')).body).toEqual({ body: {} });
    for (const body of [
      '"text"',
      '12',
      'true',
      'null',
      '   ',
      ' x',
      '{"a":',
      '{"a":1}}',
      '\uFEFF\uFEFF{}',
    ]) {
      const refused = await both(JSON_TYPE, body);
      expect(refused.status, body).toBe(299);
      expect(refused.body.type).toBe('entity.parse.failed');
      expect(refused.delegated).toBe(false);
    }
  });

  it('reads invalid UTF-8 as express.json() does', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"a":"'),
      Buffer.from([0xff, 0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    expect((await both(JSON_TYPE, bytes)).body).toEqual({ body: { a: '\uFFFD\uFFFD(' } });
  });

  it('leaves everything else to express.json()', async () => {
    const cases: [Record<string, string>, Buffer | string][] = [
      [{ ...JSON_TYPE, 'Content-Encoding': 'gzip' }, gzipSync('{"a":1}')],
      [{ ...JSON_TYPE, 'Content-Encoding': 'identity' }, '{"a":1}'],
      [{ 'Content-Type': 'application/json; charset=latin1' }, '{"a":1}'],
      [{ 'Content-Type': 'application/json; charset=utf-16le' }, Buffer.from('{"a":1}', 'utf16le')],
      [{ 'Content-Type': 'text/plain' }, '{"a":1}'],
      [{ 'Content-Type': 'application/vnd.api+json' }, '{"a":1}'],
      [JSON_TYPE, ''],
      [JSON_TYPE, `{"a":"${'x'.repeat(1024)}"}`],
      [{}, '{"a":1}'],
    ];
    for (const [headers, body] of cases) {
      expect((await both(headers, body)).delegated, JSON.stringify(headers)).toBe(true);
    }
  });

  it('agrees with express.json() on random bodies', async () => {
    const parts = [
      '{',
      '}',
      '[',
      ']',
      '"a"',
      ':',
      ',',
      '1',
      ' ',
      '\n',
      'null',
      '"\u00e9"',
      '\uFEFF',
      'x',
      '\\',
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 300; i++) {
      const length = 1 + Math.floor(random() * 8);
      const body = Array.from({ length }, () => parts[Math.floor(random() * parts.length)]).join(
        '',
      );
      const answer = await both(JSON_TYPE, body);
      expect(answer.delegated).toBe(false);
    }
  });

  it('fails a body cut short by the client as express.json() does', async () => {
    errors.length = 0;
    for (const path of ['/lean', '/reference']) {
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"a":`,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
    }
    await expect.poll(() => errors.length).toBe(2);
    expect(errors).toEqual([
      { route: '/lean', type: 'request.aborted' },
      { route: '/reference', type: 'request.aborted' },
    ]);
  });
});
