import type { Express } from 'express';

interface RouteLike {
  path: string | string[];
  methods: Record<string, boolean>;
}

interface LayerLike {
  route?: RouteLike;
  slash?: boolean;
  name: string;
  handle: { stack?: LayerLike[] };
}

/**
 * Every (method, path) the app's routes answer, walking routers inside routers.
 * Routers are mounted without a prefix, so a route's path is its full path;
 * `route.all` (the 405 of a path) names no method of its own.
 */
export function registeredRoutes(app: Express): { method: string; path: string }[] {
  const found: { method: string; path: string }[] = [];
  const walk = (stack: LayerLike[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const methods = Object.keys(layer.route.methods).filter((method) => method !== '_all');
        for (const path of [layer.route.path].flat()) {
          for (const method of methods) found.push({ method, path });
        }
      } else if (layer.handle.stack) {
        if (!layer.slash) throw new Error(`router ${layer.name} is mounted under a prefix`);
        walk(layer.handle.stack);
      }
    }
  };
  walk(app.router.stack as unknown as LayerLike[]);
  return found;
}
