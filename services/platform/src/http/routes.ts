import { type TableRoute, tableRouter } from '@svc/common';
import type { RequestHandler, Router } from 'express';
import type { RouteDoc } from './docs/route-doc.js';
import type { StatusRouteDoc } from './docs/status-route.js';
import { type FailureEnvelope, statusEnvelope } from './envelopes.js';
import { methodNotAllowed } from './errors.js';
import { type RouteHandler, withInput } from './input.js';

/**
 * One route of a resource's `*.routes.ts`, written once: method, path (and
 * older aliases), the administrator token when `admin`, the schemas its input
 * is parsed with, its handler, and its document and envelope: a spec route's
 * (docs/route-doc.ts: its failures in its own envelope at HTTP 200) or one
 * outside the spec's (docs/status-route.ts: the events and webhooks, whose
 * failures answer at their HTTP status).
 */
export type Route<H> = (RouteDoc | StatusRouteDoc) & {
  handler(handlers: H): RouteHandler;
};

/** The middleware route entries name. */
export interface RouteMiddleware {
  json: RequestHandler;
  adminOnly: RequestHandler;
}

/** A route outside the spec (its document has a `success` answer rather than a spec `reply`). */
export const isStatusRoute = (route: RouteDoc | StatusRouteDoc): route is StatusRouteDoc =>
  'success' in route;

const pathsOf = (route: RouteDoc | StatusRouteDoc) => [
  route.path,
  ...Object.keys(('aliases' in route && route.aliases) || {}),
];

/**
 * The router of a resource's table, each alias answering as its route. Before
 * the handler run the administrator token when `admin`, then the JSON body:
 * every spec route reads its own, so a refused one is answered in the route's
 * envelope; a route outside the spec reads one only when it takes a body.
 */
export function routerOf<H>(
  routes: readonly Route<H>[],
  handlers: H,
  { json, adminOnly }: RouteMiddleware,
): Router {
  const table = routes.flatMap((route): TableRoute[] => {
    const readsBody = !isStatusRoute(route) || route.body !== undefined;
    const chain = [
      ...(route.admin ? [adminOnly] : []),
      ...(readsBody ? [json] : []),
      withInput(route, route.handler(handlers)),
    ];
    return pathsOf(route).map((path) => ({ method: route.method, path, handlers: chain }));
  });
  return tableRouter(table, methodNotAllowed);
}

/** The envelope each route path's failures answer in, for the error middleware. */
export function failureEnvelopes(
  routes: readonly (RouteDoc | StatusRouteDoc)[],
): Map<string, FailureEnvelope> {
  return new Map(
    routes.flatMap((route) =>
      pathsOf(route).map(
        (path) => [path, isStatusRoute(route) ? statusEnvelope : route.failure] as const,
      ),
    ),
  );
}
