import { request } from 'node:http';

export type Outcome =
  | { kind: 'answered'; id: string; status: number; body: unknown }
  | { kind: 'refused'; id: string }
  | { kind: 'failed'; id: string; error: string };

let counter = 0;

/**
 * One request on a connection of its own, so that after a shutdown starts a new
 * request is refused rather than sent on a socket the server is closing. The
 * body must arrive whole and parse as JSON to count as answered.
 */
export function send(
  url: string,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Outcome> {
  counter += 1;
  const id = `rel-${process.pid}-${counter}`;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        agent: false,
        headers: {
          'x-request-id': id,
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            resolve({ kind: 'answered', id, status: res.statusCode ?? 0, body });
          } catch (err) {
            resolve({ kind: 'failed', id, error: `incomplete body: ${String(err)}` });
          }
        });
        res.on('error', (err) => resolve({ kind: 'failed', id, error: err.message }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(
        err.code === 'ECONNREFUSED'
          ? { kind: 'refused', id }
          : { kind: 'failed', id, error: err.code ?? err.message },
      ),
    );
    req.end(payload);
  });
}
