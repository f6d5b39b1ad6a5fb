import type { OperationDoc } from '@svc/common';
import type { Express, Response } from 'express';
import { z } from 'zod';
import { notFoundBody } from '../../src/http/envelopes.js';

/** One JSON answer as the client received it, with the route that sent it. */
export interface RecordedResponse {
  method: string;
  /** The path of the route that matched, as registered; none for a path no route serves. */
  route?: string;
  status: number;
  body: unknown;
}

const recorded: RecordedResponse[] = [];

/** The answers recorded so far in this test file (each file has its own module instance). */
export const recordedResponses = (): readonly RecordedResponse[] => recorded;

/**
 * Records every JSON answer of this app as it went out on the wire, whether
 * sent whole (res.json) or streamed (long lists). `app.response` is the
 * prototype of this app's responses only, so the production app never
 * carries the recorder.
 */
export function recordResponses(app: Express): Express {
  const { write, end } = app.response;
  const sent = new WeakMap<Response, Buffer[]>();
  const keep = (res: Response, chunk: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const chunks = sent.get(res) ?? [];
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    sent.set(res, chunks);
  };
  app.response.write = function (this: Response, chunk: unknown, ...rest: unknown[]) {
    keep(this, chunk);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof write;
  app.response.end = function (this: Response, chunk?: unknown, ...rest: unknown[]) {
    keep(this, chunk);
    const text = Buffer.concat(sent.get(this) ?? []).toString('utf8');
    if (
      String(this.getHeader('content-type') ?? '').includes('json') &&
      this.req.method !== 'HEAD'
    ) {
      recorded.push({
        method: this.req.method,
        route: this.req.route?.path,
        status: this.statusCode,
        body: JSON.parse(text),
      });
    }
    return (end as (...args: unknown[]) => Response).call(this, chunk, ...rest);
  } as typeof end;
  return app;
}

function schemaFor(
  operations: OperationDoc[],
  { method, route, status }: RecordedResponse,
): z.ZodType | string {
  if (route === undefined) return status === 404 ? notFoundBody : 'no route answered, yet not 404';
  const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
  const onPath = operations.filter((operation) => operation.path === route);
  if (onPath.length === 0) return `the route ${route} is not documented`;
  const operation = onPath.find((candidate) => candidate.method === verb);
  // A method the path does not take is answered by route.all with the path's 405.
  const answered = operation ?? (status === 405 ? onPath[0] : undefined);
  if (!answered) return `${method} is not documented`;
  return answered.responses[status]?.schema ?? `HTTP ${status} is not documented`;
}

/** Each recorded answer whose body the document does not describe, told once in a line. */
export function undocumentedResponses(
  operations: OperationDoc[],
  responses: readonly RecordedResponse[],
): string[] {
  const problems = responses.flatMap((response) => {
    const where = `${response.method} ${response.route ?? '(no route)'} HTTP ${response.status}`;
    const schema = schemaFor(operations, response);
    if (typeof schema === 'string') return [`${where}: ${schema}`];
    const result = schema.safeParse(response.body);
    if (result.success) return [];
    const body = JSON.stringify(response.body).slice(0, 300);
    return [`${where}: ${z.prettifyError(result.error)} in ${body}`];
  });
  return [...new Set(problems)];
}
