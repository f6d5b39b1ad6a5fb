import autocannon from 'autocannon';

interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** A header given a value of its own on every request (an Idempotency-Key). */
  uniqueHeader?: string;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  non2xx: number;
}

/** Drives one bounded load against a loopback URL. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  if (!new URL(options.url).hostname.match(/^(127\.0\.0\.1|localhost)$/)) {
    throw new Error(`bench traffic goes to loopback only, not ${options.url}`);
  }
  const { uniqueHeader } = options;
  const run = `${process.pid}-${Date.now()}`;
  let sent = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.duration,
    method: options.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body,
    ...(uniqueHeader
      ? {
          requests: [
            {
              setupRequest: (req: autocannon.Request) => ({
                ...req,
                headers: { ...req.headers, [uniqueHeader]: `${run}-${++sent}` },
              }),
            },
          ],
        }
      : {}),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}
