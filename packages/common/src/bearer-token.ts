const BEARER = 'Bearer ';

/**
 * What an `Authorization` header carries after `Bearer ` (exactly, one
 * space), as sent; undefined when it is missing or names another scheme.
 * The session guard package reads the same prefix in its own readToken: it
 * is installed without @svc/common.
 */
export function bearerToken(authorization: unknown): string | undefined {
  return typeof authorization === 'string' && authorization.startsWith(BEARER)
    ? authorization.slice(BEARER.length)
    : undefined;
}
