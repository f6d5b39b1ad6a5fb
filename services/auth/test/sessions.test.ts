import { createHash } from 'node:crypto';
import { createGuard } from '@svc/session-guard';
import express, { type Express } from 'express';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  instant,
  type ListedSession,
  layoutOf,
  listSessions,
  loginAs,
  NO_SESSION,
  SESSION_ID,
} from './support/sessions.js';
import { suiteApp, suiteStores } from './support/suite-setup.js';
import {
  allKeys,
  bearer,
  buildApp,
  INVALID_TOKEN,
  NO_TOKEN,
  registerUser,
  SCHEMES,
} from './support/test-app.js';

const TTL_MS = 3600 * 1000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const stores = suiteStores();

/** Another team's service guarding its own route with the package, on the same Redis. */
function otherService(scheme: 'random' | 'md5'): Express {
  const app = express();
  app.get('/api/comment/list', createGuard({ redis: stores.redis, scheme }), (req, res) => {
    res.json({ code: 200, message: 'ok', data: req.user });
  });
  return app;
}

describe.each(SCHEMES)('the sessions a user can see and end (TOKEN_SCHEME=%s)', (scheme) => {
  const keys = layoutOf(scheme);
  const app = suiteApp(stores, { tokenScheme: scheme });
  let other: Express;
  beforeAll(() => {
    other = otherService(scheme);
  });

  /** Every way a guard can be asked: the service's own route, forward auth, another service. */
  async function guardAnswers(token: string): Promise<number[]> {
    return [
      (await request(app()).get('/api/user/me').set(bearer(token))).status,
      (await request(app()).get('/api/user/verify').set(bearer(token))).status,
      (await request(other).get('/api/comment/list').set(bearer(token))).status,
    ];
  }

  /** Status and body of an answer the guard refused, and that the session's keys are gone. */
  async function expectEnded(token: string) {
    expect(await guardAnswers(token)).toEqual([401, 401, 401]);
    const res = await request(app()).get('/api/user/sessions').set(bearer(token));
    expect([res.status, res.body]).toEqual([401, INVALID_TOKEN]);
    expect(await stores.redis.exists(keys.session(token), keys.metadata(token))).toBe(0);
  }

  it('lists the session with its login time, last use, end, User-Agent and address', async () => {
    const account = await registerUser(app());
    const login = await loginAs(app(), account, 'JudgeClient/2.1 (lab-pc-07)');
    const res = await request(app()).get('/api/user/sessions').set(bearer(login.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      message: '获取成功',
      data: [
        {
          id: expect.stringMatching(SESSION_ID),
          current: true,
          createdAt: expect.any(String),
          lastSeenAt: expect.any(String),
          expiresAt: expect.any(String),
          userAgent: 'JudgeClient/2.1 (lab-pc-07)',
          ip: '127.0.0.1',
        },
      ],
    });
    const [session] = res.body.data as ListedSession[];
    const createdAt = instant(session?.createdAt as string);
    expect(createdAt).toBeGreaterThanOrEqual(login.before);
    expect(createdAt).toBeLessThanOrEqual(login.after);
    // The login was the last use the guard wrote down: the list itself came within the touch interval.
    expect(instant(session?.lastSeenAt as string)).toBe(createdAt);
    const expiresAt = instant(session?.expiresAt as string);
    expect(expiresAt).toBeGreaterThan(login.before + TTL_MS - 2000);
    expect(expiresAt).toBeLessThanOrEqual(login.after + TTL_MS);
  });

  it('keeps a null User-Agent for a login that sent none, and cuts a long one at 256 characters', async () => {
    const account = await registerUser(app());
    const none = await loginAs(app(), account);
    expect((await listSessions(app(), none.token))[0]?.userAgent).toBeNull();
    const long = `Agent/${'x'.repeat(400)}`;
    const cut = await loginAs(app(), account, long);
    const listed = await listSessions(app(), cut.token);
    expect(listed.find((s) => s.current)?.userAgent).toBe(long.slice(0, 256));
  });

  it('takes the address from X-Forwarded-For only when TRUST_PROXY names the proxy', async () => {
    const trusting = buildApp(stores, { tokenScheme: scheme, trustProxy: ['loopback'] }).app;
    const account = await registerUser(app());
    const viaProxy = await request(trusting)
      .post('/api/user/login')
      .set('X-Forwarded-For', '203.0.113.9')
      .send({ username: account.username, password: account.password });
    expect((await listSessions(trusting, viaProxy.body.data.token))[0]?.ip).toBe('203.0.113.9');

    const spoofed = await request(app())
      .post('/api/user/login')
      .set('X-Forwarded-For', '203.0.113.9')
      .send({ username: account.username, password: account.password });
    expect((await listSessions(app(), spoofed.body.data.token))[0]?.ip).toBe('127.0.0.1');
  });

  it('gives ids that stay the same for the session and tell nothing of the token or its hash', async () => {
    const account = await registerUser(app());
    const { token } = await loginAs(app(), account);
    const [first] = await listSessions(app(), token);
    await request(app()).get('/api/user/me').set(bearer(token)).expect(200);
    const [again] = await listSessions(app(), token);
    expect(again?.id).toBe(first?.id);
    const id = first?.id as string;
    for (const secret of [token, sha256(token), keys.session(token)]) {
      expect(secret).not.toContain(id);
      expect(id).not.toContain(secret.slice(0, 16));
    }
    // Nothing in Redis is named after the id either: it cannot be walked back to a key.
    expect((await allKeys(stores.redis)).some((key) => key.includes(id))).toBe(false);
  });

  it('ends one session by its id: every guard refuses it at once, the others live on', async () => {
    const account = await registerUser(app());
    const lab = await loginAs(app(), account, 'lab');
    const home = await loginAs(app(), account, 'home');
    const listed = await listSessions(app(), home.token);
    const target = listed.find((s) => s.userAgent === 'lab') ?? (listed[0] as ListedSession);

    const res = await request(app())
      .delete(`/api/user/sessions/${target.id}`)
      .set(bearer(home.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, message: '会话已结束' });

    if (scheme === 'md5') {
      // One password, one token: the lab and home logins were one session.
      expect(home.token).toBe(lab.token);
      await expectEnded(home.token);
      return;
    }
    await expectEnded(lab.token);
    expect(await guardAnswers(home.token)).toEqual([200, 200, 200]);
    const left = await listSessions(app(), home.token);
    expect(left.map((s) => [s.userAgent, s.current])).toEqual([['home', true]]);
    expect(await stores.redis.smembers(keys.index(account.username))).toEqual([
      keys.member(home.token),
    ]);
  });

  it("answers another user's session id exactly like an unknown one, and ends nothing", async () => {
    const alice = await registerUser(app());
    const bob = await registerUser(app());
    const aliceLogin = await loginAs(app(), alice);
    const bobLogin = await loginAs(app(), bob);
    const [bobSession] = await listSessions(app(), bobLogin.token);
    const before = await allKeys(stores.redis);

    const ids = [
      bobSession?.id as string,
      'A'.repeat(22),
      'Z'.repeat(64),
      'short',
      'x'.repeat(65),
      'x'.repeat(4000),
      'a.b_c-d$e%2Ffghijklmnop',
      '../../../../etc/passwd',
      'ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰ',
      `${'a'.repeat(20)}\u0000`,
    ];
    for (const id of ids) {
      const res = await request(app())
        .delete(`/api/user/sessions/${encodeURIComponent(id)}`)
        .set(bearer(aliceLogin.token));
      expect([res.status, res.body], id).toEqual([404, NO_SESSION]);
    }
    expect(await allKeys(stores.redis)).toEqual(before);
    expect(await guardAnswers(bobLogin.token)).toEqual([200, 200, 200]);
    expect(await guardAnswers(aliceLogin.token)).toEqual([200, 200, 200]);
  });

  it('answers 404 for a session already ended, and ending the current one is a logout', async () => {
    const account = await registerUser(app());
    const { token } = await loginAs(app(), account);
    const [current] = await listSessions(app(), token);
    const path = `/api/user/sessions/${current?.id}`;
    const ended = await request(app()).delete(path).set(bearer(token));
    expect([ended.status, ended.body]).toEqual([200, { code: 200, message: '会话已结束' }]);
    await expectEnded(token);
    if (scheme === 'random')
      expect(await stores.redis.exists(keys.index(account.username))).toBe(0);

    const { token: next } = await loginAs(app(), account);
    const again = await request(app()).delete(path).set(bearer(next));
    expect([again.status, again.body]).toEqual([404, NO_SESSION]);
    expect(await guardAnswers(next)).toEqual([200, 200, 200]);
  });

  it('ends every other session and keeps the current one', async () => {
    const account = await registerUser(app());
    const logins = [];
    for (const agent of ['phone', 'lab', 'laptop'])
      logins.push(await loginAs(app(), account, agent));
    const current = logins[2]?.token as string;

    const res = await request(app()).delete('/api/user/sessions').set(bearer(current));
    expect(res.status).toBe(200);
    const ended = scheme === 'md5' ? 0 : 2;
    expect(res.body).toEqual({ code: 200, message: '已退出其他会话', data: { ended } });

    expect(await guardAnswers(current)).toEqual([200, 200, 200]);
    if (scheme === 'random') {
      for (const { token } of logins.slice(0, 2)) await expectEnded(token);
      expect(await stores.redis.smembers(keys.index(account.username))).toEqual([
        keys.member(current),
      ]);
    }
    const left = await listSessions(app(), current);
    expect(left.map((s) => s.current)).toEqual([true]);

    const none = await request(app()).delete('/api/user/sessions').set(bearer(current));
    expect(none.body).toEqual({ code: 200, message: '已退出其他会话', data: { ended: 0 } });
  });

  it('logs out everywhere: every session ends, the current one included', async () => {
    const account = await registerUser(app());
    const logins = [await loginAs(app(), account), await loginAs(app(), account)];
    const bystander = await loginAs(app(), await registerUser(app()));
    const current = logins[0]?.token as string;

    const res = await request(app()).post('/api/user/logout-all').set(bearer(current));
    expect(res.status).toBe(200);
    const ended = scheme === 'md5' ? 1 : 2;
    expect(res.body).toEqual({ code: 200, message: '已退出全部会话', data: { ended } });

    for (const { token } of logins) await expectEnded(token);
    if (scheme === 'random')
      expect(await stores.redis.exists(keys.index(account.username))).toBe(0);
    expect(await guardAnswers(bystander.token)).toEqual([200, 200, 200]);
  });

  it('lists newest first and marks only the current session', async () => {
    const account = await registerUser(app());
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) {
      tokens.push((await loginAs(app(), account, `client-${i}`)).token);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const listed = await listSessions(app(), tokens[1] as string);
    if (scheme === 'md5') {
      expect(listed.map((s) => [s.userAgent, s.current])).toEqual([['client-2', true]]);
      return;
    }
    expect(listed.map((s) => [s.userAgent, s.current])).toEqual([
      ['client-2', false],
      ['client-1', true],
      ['client-0', false],
    ]);
    expect(new Set(listed.map((s) => s.id)).size).toBe(3);
  });

  it('answers the guard’s 401 on every session route without a live token', async () => {
    const routes = [
      request(app()).get('/api/user/sessions'),
      request(app()).delete('/api/user/sessions/Jm0xQ2v9T3aPqL8sWc1yZA'),
      request(app()).delete('/api/user/sessions'),
      request(app()).post('/api/user/logout-all'),
    ];
    for (const res of await Promise.all(routes))
      expect([res.status, res.body]).toEqual([401, NO_TOKEN]);
    const dead = scheme === 'md5' ? 'e'.repeat(32) : 'e'.repeat(64);
    const withDead = [
      request(app()).get('/api/user/sessions').set(bearer(dead)),
      request(app()).delete('/api/user/sessions/Jm0xQ2v9T3aPqL8sWc1yZA').set(bearer(dead)),
      request(app()).delete('/api/user/sessions').set(bearer(dead)),
      request(app()).post('/api/user/logout-all').set(bearer(dead)),
    ];
    for (const res of await Promise.all(withDead)) {
      expect([res.status, res.body]).toEqual([401, INVALID_TOKEN]);
    }
  });
});
