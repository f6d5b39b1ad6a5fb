import { Agent, createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/** A request as bytes on the wire: the path already percent-encoded, the body already encoded. */
export interface RawRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  /**
   * Values go out as latin1, one byte a character, as Node's client sends
   * them; an array sends the header once for each value.
   */
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of a Content-Length. */
  chunked?: boolean;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface RawClient {
  send(req: RawRequest): Promise<RawResponse>;
  close(): Promise<void>;
}

/**
 * The app on a loopback port, and a client that sends exactly the bytes it is
 * given: supertest would serialize a Buffer body as JSON and re-encode text.
 */
export async function rawClient(app: Express): Promise<RawClient> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  function send({ method, path, headers, body, chunked }: RawRequest): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const framing = chunked
        ? { 'transfer-encoding': 'chunked' }
        : body
          ? { 'content-length': String(body.length) }
          : {};
      const req = request(
        { host: '127.0.0.1', port, method, path, agent, headers: { ...headers, ...framing } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  return {
    send,
    async close() {
      agent.destroy();
      await new Promise<void>((resolve, reject) =>
        server.close((err) => (err ? reject(err) : resolve())),
      );
    },
  };
}
