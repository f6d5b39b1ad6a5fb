import type { Express, Response } from 'express';
import { z } from 'zod';
import type { AuthOperationDoc } from '../src/response-docs.js';
import { notFoundBody } from '../src/response-docs.js';

/** One JSON answer as the client received it. */
export interface RecordedResponse {
  method: string;
  /** The matched route's path, or the request's path when no route matched. */
  path: string;
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
}

const recorded: RecordedResponse[] = [];

/** What this test file's apps have answered so far. */
export function recordedResponses(): readonly RecordedResponse[] {
  return recorded;
}

/**
 * Keeps every JSON body the app sends from now on. It wraps `res.json` on this
 * app's own response prototype, so only this app is affected.
 */
export function recordResponses(app: Express): Express {
  const json = app.response.json;
  app.response.json = function recordJson(this: Response, body: unknown) {
    const routePath: unknown = this.req.route?.path;
    recorded.push({
      method: this.req.method,
      path: typeof routePath === 'string' ? routePath : this.req.originalUrl.split('?')[0]!,
      status: this.statusCode,
      headers: this.getHeaders(),
      body: body === undefined ? undefined : JSON.parse(JSON.stringify(body)),
    });
    return json.call(this, body);
  } as typeof json;
  return app;
}

function servedBy(operation: AuthOperationDoc, method: string, path: string): boolean {
  const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
  const pattern = new RegExp(`^${operation.path.replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);
  return operation.method === verb && pattern.test(path);
}

/** A header value as its schema describes it: numbers as numbers. */
function headerValue(value: unknown): unknown {
  const text = String(value);
  return text !== '' && !Number.isNaN(Number(text)) ? Number(text) : text;
}

/**
 * Each answer that the document does not describe: a route or status it does
 * not list, a body its schema refuses, or a documented header missing. Any
 * path it does not list may answer only the JSON 404.
 */
export function undocumentedResponses(
  responses: readonly RecordedResponse[],
  operations: readonly AuthOperationDoc[],
): string[] {
  const problems: string[] = [];
  for (const { method, path, status, headers, body } of responses) {
    const where = `${method} ${path} ${status} ${JSON.stringify(body)?.slice(0, 300)}`;
    const operation = operations.find((candidate) => servedBy(candidate, method, path));
    if (!operation) {
      if (status !== 404 || !notFoundBody.safeParse(body).success) {
        problems.push(`${where}: no documented route, and not the JSON 404`);
      }
      continue;
    }
    const documented = operation.responses[status];
    if (!documented?.schema) {
      problems.push(`${where}: no documented JSON body for this status`);
      continue;
    }
    const result = documented.schema.safeParse(body);
    if (!result.success) problems.push(`${where}: ${z.prettifyError(result.error)}`);
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) problems.push(`${where}: header ${name} missing`);
      else if (!header.schema.safeParse(headerValue(value)).success) {
        problems.push(`${where}: header ${name}: ${String(value)} does not fit its schema`);
      }
    }
  }
  return [...new Set(problems)];
}
