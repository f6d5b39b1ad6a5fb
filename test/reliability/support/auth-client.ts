/** JSON calls to an auth service (or anything in front of it) for the scaling tests. */
export interface Answer {
  status: number;
  body: { code?: number; message?: string; data?: Record<string, unknown> };
  headers: Headers;
}

export async function call(
  base: string,
  path: string,
  options: { method?: string; body?: unknown; token?: string; requestId?: string } = {},
): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'], headers: res.headers };
}

export async function register(base: string, username: string, password: string): Promise<void> {
  const answer = await call(base, '/api/user/register', { body: { username, password } });
  if (answer.status !== 200) throw new Error(`register ${username}: ${JSON.stringify(answer)}`);
}

export async function login(base: string, username: string, password: string): Promise<string> {
  const answer = await call(base, '/api/user/login', { body: { username, password } });
  if (answer.status !== 200) throw new Error(`login ${username}: ${JSON.stringify(answer)}`);
  return answer.body.data?.token as string;
}
