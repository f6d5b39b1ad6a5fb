import { type OperationDoc, tableRouter } from '@svc/common';
import type { RequestHandler, Router } from 'express';
import { TOKEN_REQUIRED, wrongMethod } from '../api-docs/responses.docs.js';
import { methodNotAllowed } from './errors.js';

/**
 * One route of a resource's `*.routes.ts`: method, path, middleware, handler
 * and its document. Every route reads the JSON body first, so a refused body
 * answers before the guard; `guard` then lets through only a request with a
 * live session (sessions/session-guard.ts) and documents the token it takes.
 */
export interface AuthRoute<H> extends OperationDoc {
  guard?: true;
  handler(handlers: H): RequestHandler;
}

/** The middleware route entries name. */
export interface RouteMiddleware {
  /** Reads a JSON body. */
  json: RequestHandler;
  /** Lets through only a request with a live session. */
  guard: RequestHandler;
}

/** The router of a resource's table; another method of a known path answers 405. */
export function routerOf<H>(
  routes: readonly AuthRoute<H>[],
  handlers: H,
  { json, guard }: RouteMiddleware,
): Router {
  const table = routes.map((route) => ({
    method: route.method,
    path: route.path,
    handlers: [json, ...(route.guard ? [guard] : []), route.handler(handlers)],
  }));
  return tableRouter(table, methodNotAllowed);
}

/** The route as the OpenAPI document shows it: a guarded route takes a token, every path answers 405. */
export function operationOf<H>({ guard, handler, ...operation }: AuthRoute<H>): OperationDoc {
  return {
    ...operation,
    ...(guard ? { security: TOKEN_REQUIRED } : {}),
    responses: { ...operation.responses, 405: wrongMethod },
  };
}
