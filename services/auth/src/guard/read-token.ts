import type { IncomingHttpHeaders } from 'node:http';

const BEARER = 'Bearer ';

/**
 * The token as the old guard found it: `Authorization` when it starts with
 * `Bearer ` (exactly, one space), the rest trimmed; otherwise the `token`
 * header, trimmed. Empty means no token; a `Bearer ` header with nothing after
 * it still wins over the `token` header, as it did in the old guard.
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
