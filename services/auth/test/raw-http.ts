import { Agent, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface RawRequest {
  method: 'GET' | 'POST';
  /** Path and query, as sent. */
  path: string;
  /**
   * Values go out as latin1, one byte a character, as Node's client sends
   * them; an array sends the header once for each value.
   */
  headers: Record<string, string | string[]>;
  body?: Buffer;
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
 * The app on a loopback port and a client that sends exactly the bytes it is
 * given: no JSON encoding and no header rewriting, unlike supertest.
 */
export async function listenRaw(app: Express): Promise<RawClient> {
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    send: ({ method, path, headers, body }) =>
      new Promise((resolve, reject) => {
        const sent = { ...headers };
        if (body !== undefined) sent['content-length'] = String(body.length);
        const req = request(
          { host: '127.0.0.1', port, method, path, headers: sent, agent },
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
      }),
    async close() {
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
