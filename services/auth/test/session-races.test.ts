import type { Express } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { layoutOf, listSessions, loginAs } from './support/sessions.js';
import { suiteApp, suiteStores } from './support/suite-setup.js';
import { bearer, buildApp, INVALID_TOKEN, registerUser, SCHEMES } from './support/test-app.js';

const stores = suiteStores();

const keys = layoutOf('random');

/** The tokens whose sessions still let a request through. */
async function stillLive(app: Express, tokens: string[]): Promise<string[]> {
  const answers = await Promise.all(
    tokens.map((token) => request(app).get('/api/user/me').set(bearer(token))),
  );
  for (const res of answers) expect([200, 401]).toContain(res.status);
  return tokens.filter((_, i) => answers[i]?.status === 200);
}

describe('logins racing with the routes that end sessions (TOKEN_SCHEME=random)', () => {
  const app = suiteApp(stores, { tokenScheme: 'random' });

  it.each([
    ['DELETE /api/user/sessions', 'delete', '/api/user/sessions', '已退出其他会话'],
    ['POST /api/user/logout-all', 'post', '/api/user/logout-all', '已退出全部会话'],
  ] as const)(
    '%s while 20 logins run: the count, the index and the list agree with the guard',
    async (_, method, path, message) => {
      const account = await registerUser(app());
      const current = (await loginAs(app(), account)).token;
      const earlier = [];
      for (let i = 0; i < 5; i++) earlier.push((await loginAs(app(), account)).token);

      const logins = Array.from({ length: 20 }, () => loginAs(app(), account));
      const ending = request(app())[method](path).set(bearer(current));
      const [res, ...made] = await Promise.all([ending, ...logins]);
      const fresh = made.map((login) => login.token);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ code: 200, message, data: { ended: expect.any(Number) } });
      const everyone = [current, ...earlier, ...fresh];
      const live = await stillLive(app(), everyone);
      // Every session that was there before the call has ended (the current one kept by DELETE).
      expect(live.filter((token) => !fresh.includes(token))).toEqual(
        method === 'delete' ? [current] : [],
      );
      expect(res.body.data.ended).toBe(everyone.length - live.length);
      // The index holds exactly the live sessions; nothing of an ended one is left.
      expect((await stores.redis.smembers(keys.index(account.username))).sort()).toEqual(
        live.map(keys.member).sort(),
      );
      for (const token of everyone.filter((t) => !live.includes(t))) {
        expect(await stores.redis.exists(keys.session(token), keys.metadata(token))).toBe(0);
      }
      if (live.length > 0) {
        const listed = await listSessions(app(), live[0] as string);
        expect(listed).toHaveLength(live.length);
      }
    },
  );
});

describe.each(SCHEMES)(
  'requests in flight while their session ends (TOKEN_SCHEME=%s)',
  (scheme) => {
    const layout = layoutOf(scheme);

    // Every route that ends a session, called from the session itself or from another one.
    const endings: [string, (app: Express, token: string, other: string) => Promise<unknown>][] = [
      ['logout', (app, token) => request(app).post('/api/user/logout').set(bearer(token))],
      ['logout-all', (app, token) => request(app).post('/api/user/logout-all').set(bearer(token))],
      [
        'DELETE /api/user/sessions/:id',
        async (app, token) => {
          const session = (await listSessions(app, token)).find((listed) => listed.current);
          return request(app).delete(`/api/user/sessions/${session?.id}`).set(bearer(token));
        },
      ],
      [
        'DELETE /api/user/sessions from another session',
        (app, _token, other) => request(app).delete('/api/user/sessions').set(bearer(other)),
      ],
    ];

    it.each(endings)(
      '%s: the sliding renewal and the touch of requests in flight never bring it back',
      async (name, end) => {
        const app = buildApp(stores, { tokenScheme: scheme, sliding: true, touchSeconds: 1 }).app;
        const account = await registerUser(app);
        const { token } = await loginAs(app, account);
        if (scheme === 'md5' && name.includes('another')) return; // one password, one session
        const other = scheme === 'md5' ? token : (await loginAs(app, account)).token;
        // An old lastSeenAt, so the requests in flight also write it.
        await stores.redis.hset(layout.metadata(token), 'lastSeenAt', String(Date.now() - 5000));

        const inFlight = Array.from({ length: 40 }, () =>
          request(app).get('/api/user/me').set(bearer(token)),
        );
        const [ending, ...answers] = await Promise.all([end(app, token, other), ...inFlight]);
        expect((ending as { status: number }).status).toBe(200);
        for (const res of answers) expect([200, 401]).toContain(res.status);

        expect(await stores.redis.exists(layout.session(token), layout.metadata(token))).toBe(0);
        const after = await request(app).get('/api/user/me').set(bearer(token));
        expect([after.status, after.body]).toEqual([401, INVALID_TOKEN]);
        if (scheme === 'random') {
          expect(
            await stores.redis.sismember(layout.index(account.username), layout.member(token)),
          ).toBe(0);
        }
      },
    );
  },
);
