import type { RequestHandler } from 'express';

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/**
 * Express cannot percent-decode a path parameter such as `%ff` or `%`, and
 * answers it with its own 400 before any route runs. Taken literally instead,
 * the segment reaches its route, whose rules reject it in the route's own
 * envelope (`/api/merchant/approve/%ff`: id must be a positive integer).
 */
export const undecodableSegmentsLiterally: RequestHandler = (req, _res, next) => {
  const query = req.url.indexOf('?');
  const path = query === -1 ? req.url : req.url.slice(0, query);
  if (!path.includes('%')) {
    next();
    return;
  }
  const literal = path
    .split('/')
    .map((segment) => (decodes(segment) ? segment : segment.replaceAll('%', '%25')))
    .join('/');
  if (literal !== path) req.url = literal + (query === -1 ? '' : req.url.slice(query));
  next();
};
