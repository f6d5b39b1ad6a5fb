import type { Express, Response } from 'express';
import { z } from 'zod';

/** One JSON answer as it went out on the wire. */
export interface RecordedResponse {
  method: string;
  /** The request's path, without the query. */
  path: string;
  /** The matched route's path as registered; none when no route matched. */
  route?: string;
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
}

/** What the recorder needs of an OpenAPI operation description (common's OperationDoc fits). */
interface DocumentedOperation {
  method: string;
  path: string;
  responses: Record<
    number,
    {
      schema?: z.ZodType;
      headers?: Record<string, { schema: z.ZodType; required?: boolean }>;
    }
  >;
}

const recorded: RecordedResponse[] = [];

/** The answers recorded so far in this test file (each file has its own module instance). */
export const recordedResponses = (): readonly RecordedResponse[] => recorded;

/**
 * Records every JSON answer of this app as it went out, whether sent whole
 * (res.json) or streamed (long lists). `app.response` is the prototype of this
 * app's responses only, so no other app carries the recorder.
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
    const json = String(this.getHeader('content-type') ?? '').includes('json');
    if (json && this.req.method !== 'HEAD') {
      const route: unknown = this.req.route?.path;
      recorded.push({
        method: this.req.method,
        path: this.req.originalUrl.split('?')[0] as string,
        route: typeof route === 'string' ? route : undefined,
        status: this.statusCode,
        headers: this.getHeaders(),
        body: JSON.parse(Buffer.concat(sent.get(this) ?? []).toString('utf8')),
      });
    }
    return (end as (...args: unknown[]) => Response).call(this, chunk, ...rest);
  } as typeof end;
  return app;
}

const pathPattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);

/** The operations of the route that answered, or of the documented path the request named. */
function operationsOn(operations: DocumentedOperation[], { route, path }: RecordedResponse) {
  return route === undefined
    ? operations.filter((operation) => pathPattern(operation.path).test(path))
    : operations.filter((operation) => operation.path === route);
}

/** A header is text on the wire; its schema may describe it as text or as the number it spells. */
function headerFits(schema: z.ZodType, value: unknown): boolean {
  const text = String(value);
  if (schema.safeParse(text).success) return true;
  return text !== '' && schema.safeParse(Number(text)).success;
}

function problemsOf(
  operations: DocumentedOperation[],
  notFoundBody: z.ZodType,
  response: RecordedResponse,
): string[] {
  const { method, status, headers, body } = response;
  // The document builder gives every answer an X-Request-Id.
  if (headers['x-request-id'] === undefined) return ['header X-Request-Id missing'];
  const onPath = operationsOn(operations, response);
  if (onPath.length === 0) {
    if (response.route !== undefined) return [`the route ${response.route} is not documented`];
    return status === 404 && notFoundBody.safeParse(body).success
      ? []
      : ['no documented route, and not the JSON 404'];
  }
  const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
  // A method the path does not take is answered with the path's 405, documented on its operations.
  const operation =
    onPath.find((candidate) => candidate.method === verb) ??
    (status === 405 ? onPath[0] : undefined);
  if (!operation) return [`${method} is not documented on this path`];
  const documented = operation.responses[status];
  if (!documented?.schema) return [`HTTP ${status} has no documented JSON body`];
  const problems: string[] = [];
  const result = documented.schema.safeParse(body);
  if (!result.success) problems.push(z.prettifyError(result.error));
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const value = headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required !== false) problems.push(`header ${name} missing`);
    } else if (!headerFits(header.schema, value)) {
      problems.push(`header ${name}: ${String(value)} does not fit its schema`);
    }
  }
  return problems;
}

/**
 * Each answer the document does not describe, told once in a line: a route or
 * status it does not list, a body its schema refuses, a documented header or
 * the request id missing. A path it does not list may answer only
 * `notFoundBody` with 404.
 */
export function undocumentedResponses(
  responses: readonly RecordedResponse[],
  operations: DocumentedOperation[],
  notFoundBody: z.ZodType,
): string[] {
  return responses.flatMap((response) => {
    const where = `${response.method} ${response.path} HTTP ${response.status} ${JSON.stringify(response.body)?.slice(0, 300)}`;
    return problemsOf(operations, notFoundBody, response).map((problem) => `${where}: ${problem}`);
  });
}
