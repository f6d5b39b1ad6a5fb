import { type RequestHandler, Router } from 'express';

type RouteMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** One entry of a service's route table as Express takes it: its middleware in order, the handler last. */
export interface TableRoute {
  method: RouteMethod;
  path: string;
  handlers: RequestHandler[];
}

/** The `Allow` header of a path: its methods in alphabetical order, HEAD with GET (Express answers it). */
function allowOf(routes: readonly TableRoute[]): string {
  const methods = new Set(routes.map(({ method }) => method.toUpperCase()));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort().join(', ');
}

/**
 * The Express router of a route table: each path once, in the order of its
 * first entry, with its methods, then `wrongMethod(allow)` for any other
 * method, so a known path asked wrongly is not answered as an unknown one.
 */
export function tableRouter(
  routes: readonly TableRoute[],
  wrongMethod: (allow: string) => RequestHandler,
): Router {
  const byPath = new Map<string, TableRoute[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  const router = Router();
  for (const [path, entries] of byPath) {
    const route = router.route(path);
    for (const { method, handlers } of entries) route[method](...handlers);
    route.all(wrongMethod(allowOf(entries)));
  }
  return router;
}
