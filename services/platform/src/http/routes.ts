import { type TableRoute, tableRouter } from '@svc/common';
import type { RequestHandler, Router } from 'express';
import type { RouteDoc } from './docs/route-doc.js';
import type { StatusRouteDoc } from './docs/status-route.js';
import { type FailureEnvelope, statusEnvelope } from './envelopes.js';
import { methodNotAllowed } from './errors.js';

/**
 * A spec route, one entry of its resource's `*.routes.ts`: its document and
 * envelope (api-docs/route-doc.ts) and its handler. Before the handler run the
 * administrator token when `admin`, then the JSON body: every spec route reads
 * its own, so a refused one is answered in the route's envelope.
 */
export interface SpecRoute<H> extends RouteDoc {
  handler(handlers: H): RequestHandler;
}

/**
 * A route outside the spec (events, webhooks): its document
 * (api-docs/status-route.ts) and its handler, behind the administrator token
 * and, when `json`, the JSON body; its failures answer at their HTTP status.
 */
export interface StatusRoute<H> extends StatusRouteDoc {
  handler(handlers: H): RequestHandler;
  json?: true;
}

/** The middleware route entries name. */
export interface RouteMiddleware {
  json: RequestHandler;
  adminOnly: RequestHandler;
}

const pathsOf = (route: RouteDoc) => [route.path, ...Object.keys(route.aliases ?? {})];

/** The router of a spec resource's table, each alias answering as its route. */
export function specRouter<H>(
  routes: readonly SpecRoute<H>[],
  handlers: H,
  { json, adminOnly }: RouteMiddleware,
): Router {
  const table = routes.flatMap((route): TableRoute[] => {
    const chain = [...(route.admin ? [adminOnly] : []), json, route.handler(handlers)];
    return pathsOf(route).map((path) => ({ method: route.method, path, handlers: chain }));
  });
  return tableRouter(table, methodNotAllowed);
}

/** The router of a table of routes outside the spec. */
export function statusRouter<H>(
  routes: readonly StatusRoute<H>[],
  handlers: H,
  { json, adminOnly }: RouteMiddleware,
): Router {
  const table = routes.map(({ method, path, json: readsBody, handler }) => ({
    method,
    path,
    handlers: [adminOnly, ...(readsBody ? [json] : []), handler(handlers)],
  }));
  return tableRouter(table, methodNotAllowed);
}

/** The envelope each route path's failures answer in, for the error middleware. */
export function failureEnvelopes(
  spec: readonly RouteDoc[],
  status: readonly StatusRouteDoc[],
): Map<string, FailureEnvelope> {
  return new Map<string, FailureEnvelope>([
    ...spec.flatMap((route) => pathsOf(route).map((path) => [path, route.failure] as const)),
    ...status.map(({ path }) => [path, statusEnvelope] as const),
  ]);
}
