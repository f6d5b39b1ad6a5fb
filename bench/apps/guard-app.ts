/**
 * One app, three ways to answer GET .../me with the same body: behind our guard,
 * with no check at all, and behind express-session + connect-redis (what a team
 * would otherwise pick) on the same Redis. The plumbing is the services' own.
 */

import { connectRedis, createBaseApp, createLogger } from '@svc/common';
import { createGuard, createTestSession, type TokenScheme } from '@svc/session-guard';
import { RedisStore } from 'connect-redis';
import session from 'express-session';
import { createClient } from 'redis';

declare module 'express-session' {
  interface SessionData {
    username: string;
  }
}

const url = process.env.REDIS_URL as string;
const scheme = (process.env.TOKEN_SCHEME ?? 'random') as TokenScheme;
const USERNAME = 'bench-user';
const meBody = (username: string) => ({ code: 200, message: '获取成功', data: { username } });

const redis = await connectRedis({ url, host: '', port: 0, db: 0 });
const sessionClient = createClient({ url });
await sessionClient.connect();
const sessions = session({
  store: new RedisStore({ client: sessionClient, prefix: 'bench-express-session:' }),
  secret: 'bench-only-secret',
  resave: false,
  saveUninitialized: false,
});

const app = createBaseApp({ logger: createLogger({ name: 'bench', level: 'info' }) });
app.get('/healthz', (_req, res) => {
  res.json({ code: 200 });
});
app.post('/bench/token', async (_req, res) => {
  res.json({ token: await createTestSession(redis, { username: USERNAME, scheme }) });
});
app.get('/api/user/me', createGuard({ redis, scheme }), (req, res) => {
  res.json(meBody(req.user?.username ?? ''));
});
app.get('/unguarded/me', (_req, res) => {
  res.json(meBody(USERNAME));
});
app.post('/session/login', sessions, (req, res) => {
  req.session.username = USERNAME;
  res.json({ code: 200, message: '登录成功' });
});
app.get('/session/me', sessions, (req, res) => {
  if (!req.session.username) {
    res.status(401).json({ code: 401, message: 'Token无效或已过期,请重新登录' });
    return;
  }
  res.json(meBody(req.session.username));
});

app.listen(Number(process.env.PORT), '127.0.0.1');
