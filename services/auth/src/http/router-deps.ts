import type { RequestHandler } from 'express';

/** The middleware a resource's routes put before their handlers. */
export interface RouterDeps {
  /** Reads a JSON body; first on every route, so a refused body answers before the guard. */
  json: RequestHandler;
  /** Lets through only a request with a live session (sessions/session-guard.ts). */
  guard: RequestHandler;
}
