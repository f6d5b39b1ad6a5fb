import type { Express } from 'express';

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `METHOD path` of every route registered in the app, nested routers included. */
export function registeredRoutes(app: Express): string[] {
  const walk = (stack: Layer[]): string[] =>
    stack.flatMap((layer) => {
      if (!layer.route) return layer.handle?.stack ? walk(layer.handle.stack) : [];
      const paths = ([] as string[]).concat(layer.route.path);
      const methods = Object.keys(layer.route.methods).filter((method) => method !== '_all');
      return paths.flatMap((path) => methods.map((method) => `${method.toUpperCase()} ${path}`));
    });
  return walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
}
