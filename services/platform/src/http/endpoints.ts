import { AppError } from '@svc/common';
import { type RequestHandler, Router } from 'express';
import { type FailureEnvelope, failsWith } from './failure.js';

export interface Endpoint {
  method: 'get' | 'post' | 'put';
  path: string;
  failure: FailureEnvelope;
  handler: RequestHandler;
}

/** Mounts the endpoints; a known path asked with another method answers 405. */
export function endpointRouter(endpoints: Endpoint[]): Router {
  const router = Router();
  const paths = [...new Set(endpoints.map((endpoint) => endpoint.path))];
  for (const path of paths) {
    const route = router.route(path);
    const own = endpoints.filter((endpoint) => endpoint.path === path);
    for (const { method, failure, handler } of own) route[method](failsWith(failure), handler);
    const methods = own.map((endpoint) => endpoint.method.toUpperCase());
    const allowed = (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ');
    route.all((_req, res) => {
      res.set('Allow', allowed);
      throw new AppError(405, 'Method Not Allowed');
    });
  }
  return router;
}
