import type { IncomingHttpHeaders } from 'node:http';

const BEARER = 'Bearer ';

/**
 * The token as the old guard found it: `Authorization` when it starts with
 * `Bearer ` (exactly, one space), the rest trimmed; otherwise the `token`
 * header, trimmed. Empty means no token. (HTTP servers strip whitespace at the
 * end of a header value, so `Bearer ` with nothing after it arrives as `Bearer`,
 * which does not start with `Bearer `, and the `token` header is used.)
 */
export function readToken(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  const raw =
    typeof authorization === 'string' && authorization.startsWith(BEARER)
      ? authorization.slice(BEARER.length)
      : headers.token;
  if (typeof raw !== 'string') return undefined;
  const token = raw.trim();
  return token === '' ? undefined : token;
}
