import type { Logger } from '@svc/common';
import type { Request } from 'express';

/**
 * The request's child logger that common's request logger (pino-http) sets.
 * Its type comes from pino-http's declaration merging, which reaches this
 * package through common's sources but not through its built declarations.
 */
export function requestLog(req: Request): Logger {
  return (req as Request & { log: Logger }).log;
}
