import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** `METHOD /path` of every row of a page's "## Routes" tables; a cell may name several paths. */
function documentedRoutes(page: string): string[] {
  const text = read(page);
  const start = text.indexOf('\n## Routes');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  return [...section.matchAll(/^\| (GET|POST|PUT|DELETE|PATCH) +\| ([^|]+)\|/gm)].flatMap(
    ([, method, paths]) =>
      [...(paths as string).matchAll(/`(\/[^`]*)`/g)].map(([, path]) => `${method} ${path}`),
  );
}

/** What the service serves: its committed OpenAPI document (a test holds it to the code) and /metrics. */
function servedRoutes(service: string): string[] {
  const document = JSON.parse(read(`services/${service}/openapi.json`)) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const routes = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map(
      (method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
    ),
  );
  return [...routes, 'GET /metrics'];
}

describe.each(['auth', 'platform'])('docs/%s.md', (service) => {
  it('lists every route the service serves in its route table, and no other', () => {
    expect(documentedRoutes(`docs/${service}.md`).sort()).toEqual(servedRoutes(service).sort());
  });
});
