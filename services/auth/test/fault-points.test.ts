import { randomBytes } from 'node:crypto';
import type { RowDataPacket } from '@svc/common';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventsOf,
  type FaultBench,
  faultAt,
  holding,
  openFaultBench,
  passwordIs,
  runningSeen,
  sessionKeysOf,
} from './support/fault-bench.js';
import { layoutOf, NO_SESSION } from './support/sessions.js';
import { bearer, INVALID_TOKEN, UNAVAILABLE, uniqueName } from './support/test-app.js';
import { codeOf, enrol } from './support/totp.js';

/*
 * The contract's fifth round: an answer is the truth, under every fault. Every
 * write route against each fault point that applies to it: the answer, then
 * what the stores hold, then the same request sent again, agreeing every
 * time. "Failed" (503) means nothing was written; "done" (200) that all of it
 * was; "unknown" (503 with its own text and Retry-After) that some or all of
 * it may have been, and the retry then settles it: it finishes the work, or
 * answers what its having been done means (a dead token's 401, an ended
 * session's 404).
 */

const UNKNOWN = { code: 503, message: '操作结果未知,请重试同一请求以确认结果' };
const keys = layoutOf('random');
const escaped = (text: string) => text.replace(/[{}$]/g, (c) => `\\${c}`);

/** The END of a session (its two keys, no argument after them): not a guard's check or a listing. */
const endOf = (token: string) => new RegExp(`${escaped(keys.metadata(token))}\\r\\n(?!\\$)`);
/** A login's OPEN: the first command that names a session's metadata. */
const OPEN = /\{session:[0-9a-f]{64}\}:meta/;
const indexOf = (username: string) => keys.index(username);
/** A COMMIT sent alone, not the READ COMMITTED of a transaction's first statement. */
const COMMIT = /(?<!READ )COMMIT$/;
const credentialsOf = (username: string) => `session:credentials:${username.toLowerCase()}`;

let bench: FaultBench;
beforeAll(async () => {
  bench = await openFaultBench();
}, 60_000);
afterAll(() => bench?.close());

/** What a case works on: its app, its user, the user's session tokens (the first is the caller's). */
interface Ctx {
  app: Express;
  user: { id: number; username: string; password: string };
  tokens: string[];
  /** The request's User-Agent: what its security event carries, so a fault can find that write. */
  ua: string;
  newPassword: string;
  /** The second step's: the challenge of a right password, and an unspent code. */
  challenge?: string;
  code?: string;
}

/** What a write did, as the stores tell: nothing, all of it, or part. */
type Effect = 'none' | 'all' | 'part';
const effectOf = (done: boolean[]): Effect =>
  done.every(Boolean) ? 'all' : done.some(Boolean) ? 'part' : 'none';

interface Route {
  /** Sessions logged in before the request (none: the user is not even registered). */
  sessions: number;
  send(ctx: Ctx): PromiseLike<request.Response>;
  done: { status: number; body: unknown };
  /** What the request sent again answers once it had all been done. */
  again: { status: number; body: unknown };
  effect(ctx: Ctx): Promise<Effect>;
  /** What the user has before the request, beyond its sessions. */
  prepare?(ctx: Ctx): Promise<void>;
}

const live = async (token: string) => (await bench.direct.redis.exists(keys.session(token))) === 1;
const eventCount = async (ctx: Ctx, type: string) =>
  (await eventsOf(bench.direct.pool, ctx.user.username, type)).length;

/** The login events of this request (its User-Agent). */
const loginsOf = async (ctx: Ctx) => {
  const [rows] = await bench.direct.pool.query<RowDataPacket[]>(
    "SELECT id FROM security_events WHERE user_id = ? AND type = 'login' AND user_agent = ?",
    [ctx.user.id, ctx.ua],
  );
  return rows.length;
};

const routes: Record<string, Route> = {
  register: {
    sessions: -1,
    send: (ctx) =>
      request(ctx.app)
        .post('/api/user/register')
        .send({ username: ctx.user.username, password: ctx.user.password }),
    done: { status: 200, body: { code: 200, message: '注册成功', data: expect.any(Object) } },
    again: { status: 200, body: { code: 200, message: '注册成功', data: expect.any(Object) } },
    effect: async (ctx) =>
      effectOf([await passwordIs(bench.direct.pool, ctx.user.username, ctx.user.password)]),
  },
  login: {
    sessions: 0,
    send: (ctx) =>
      request(ctx.app)
        .post('/api/user/login')
        .set('User-Agent', ctx.ua)
        .send({ username: ctx.user.username, password: ctx.user.password }),
    done: { status: 200, body: { code: 200, message: '登录成功', data: expect.any(Object) } },
    again: { status: 200, body: { code: 200, message: '登录成功', data: expect.any(Object) } },
    async effect(ctx) {
      const sessions = await sessionKeysOf(bench.direct.redis, ctx.user.username);
      return effectOf([sessions.length > 0, (await eventCount(ctx, 'login')) > 0]);
    },
  },
  'second step': {
    sessions: 0,
    async prepare(ctx) {
      const { secret } = await enrol(ctx.app, ctx.user);
      const res = await request(ctx.app).post('/api/user/login').send(ctx.user);
      ctx.challenge = res.body.data.challenge;
      // The enrolment spent the current step's code.
      ctx.code = codeOf(secret, 1);
    },
    send: (ctx) =>
      request(ctx.app)
        .post('/api/user/login/2fa')
        .set('User-Agent', ctx.ua)
        .send({ challenge: ctx.challenge, code: ctx.code }),
    done: { status: 200, body: { code: 200, message: '登录成功', data: expect.any(Object) } },
    again: { status: 401, body: { code: 401, message: '验证已失效,请重新登录' } },
    async effect(ctx) {
      const sessions = await sessionKeysOf(bench.direct.redis, ctx.user.username);
      return effectOf([sessions.length > 0, (await loginsOf(ctx)) > 0]);
    },
  },
  logout: {
    sessions: 1,
    send: (ctx) =>
      request(ctx.app)
        .post('/api/user/logout')
        .set('User-Agent', ctx.ua)
        .set(bearer(ctx.tokens[0] as string)),
    done: { status: 200, body: { code: 200, message: '已退出登录' } },
    again: { status: 401, body: INVALID_TOKEN },
    async effect(ctx) {
      return effectOf([
        !(await live(ctx.tokens[0] as string)),
        (await eventCount(ctx, 'session_ended')) > 0,
      ]);
    },
  },
  'logout-all': {
    sessions: 3,
    send: (ctx) =>
      request(ctx.app)
        .post('/api/user/logout-all')
        .set('User-Agent', ctx.ua)
        .set(bearer(ctx.tokens[0] as string)),
    done: {
      status: 200,
      body: { code: 200, message: '已退出全部会话', data: { ended: expect.any(Number) } },
    },
    again: { status: 401, body: INVALID_TOKEN },
    async effect(ctx) {
      const ended = await Promise.all(ctx.tokens.map(async (token) => !(await live(token))));
      return effectOf([...ended, (await eventCount(ctx, 'logout_all')) > 0]);
    },
  },
  'end one session': {
    sessions: 2,
    async send(ctx) {
      const other = ctx.tokens[1] as string;
      const id = await bench.direct.redis.hget(keys.metadata(other), 'id');
      return request(ctx.app)
        .delete(`/api/user/sessions/${id}`)
        .set('User-Agent', ctx.ua)
        .set(bearer(ctx.tokens[0] as string));
    },
    done: { status: 200, body: { code: 200, message: '会话已结束' } },
    again: { status: 404, body: NO_SESSION },
    async effect(ctx) {
      return effectOf([
        !(await live(ctx.tokens[1] as string)),
        (await eventCount(ctx, 'session_ended')) > 0,
      ]);
    },
  },
  'end the others': {
    sessions: 3,
    send: (ctx) =>
      request(ctx.app)
        .delete('/api/user/sessions')
        .set('User-Agent', ctx.ua)
        .set(bearer(ctx.tokens[0] as string)),
    done: {
      status: 200,
      body: { code: 200, message: '已退出其他会话', data: { ended: expect.any(Number) } },
    },
    again: { status: 200, body: { code: 200, message: '已退出其他会话', data: { ended: 0 } } },
    async effect(ctx) {
      const [current, ...others] = ctx.tokens;
      expect(await live(current as string)).toBe(true);
      const ended = await Promise.all(others.map(async (token) => !(await live(token))));
      return effectOf([...ended, (await eventCount(ctx, 'session_ended')) > 0]);
    },
  },
  'change password': {
    sessions: 2,
    send: (ctx) =>
      request(ctx.app)
        .post('/api/user/change-password')
        .set('User-Agent', ctx.ua)
        .set(bearer(ctx.tokens[0] as string))
        .send({ oldPassword: ctx.user.password, newPassword: ctx.newPassword }),
    done: { status: 200, body: { code: 200, message: '密码修改成功,请重新登录' } },
    again: { status: 401, body: INVALID_TOKEN },
    async effect(ctx) {
      const { pool } = bench.direct;
      const stored = await passwordIs(pool, ctx.user.username, ctx.newPassword);
      const old = await passwordIs(pool, ctx.user.username, ctx.user.password);
      expect(stored).toBe(!old);
      const ended = await Promise.all(ctx.tokens.map(async (token) => !(await live(token))));
      return effectOf([stored, (await eventCount(ctx, 'password_changed')) > 0, ...ended]);
    },
  },
};

/** A fault made ready for the case's request; `over()` brings the stores back once it answered. */
interface Armed {
  over(): Promise<void> | void;
}
type Fault = (ctx: Ctx) => Promise<Armed> | Armed;

const redisGone =
  (match: (ctx: Ctx) => string | RegExp, kind: 'cut-before' | 'cut-after'): Fault =>
  (ctx) =>
    faultAt(bench.redisProxy, match(ctx), kind, { gone: true });
/** The connection cut before a command, and Redis there again for the reconnect. */
const redisBlip =
  (match: (ctx: Ctx) => string | RegExp): Fault =>
  (ctx) =>
    faultAt(bench.redisProxy, match(ctx), 'cut-before');
const mysqlCut =
  (match: (ctx: Ctx) => string | RegExp, kind: 'cut-before' | 'cut-after'): Fault =>
  (ctx) =>
    faultAt(bench.mysqlProxy, match(ctx), kind);

/** MySQL gone for the service (its connections cut, new ones refused) before the request. */
const mysqlDown: Fault = () => {
  bench.mysqlProxy.refuse(true);
  bench.mysqlProxy.cutAll();
  return { over: () => bench.mysqlProxy.refuse(false) };
};

/** The statement held in the proxy while MariaDB is stopped and started again, then its connection cut. */
const mysqlRestartedAt =
  (match: (ctx: Ctx) => string | RegExp): Fault =>
  (ctx) => {
    const stall = bench.mysqlProxy.fault(match(ctx), 'stall');
    let met = false;
    const restarted = stall.met.then(async () => {
      met = true;
      await bench.mysqlServer.stop();
      await bench.mysqlServer.start();
      stall.cut();
    });
    return {
      async over() {
        await restarted;
        expect(met).toBe(true);
      },
    };
  };

/** The user's row held FOR UPDATE from another connection, as an administrator's transaction would. */
const userRowHeld: Fault = async (ctx) => {
  const lock = await holding(bench, [
    ['SELECT id FROM users WHERE id = ? FOR UPDATE', [ctx.user.id]],
  ]);
  return { over: () => lock.release() };
};

/** A name not yet taken, locked by another connection's gap lock: the register's INSERT waits for it. */
const nameHeld: Fault = async (ctx) => {
  const lock = await holding(bench, [
    ['SELECT id FROM users WHERE username = ? FOR UPDATE', [ctx.user.username]],
  ]);
  return { over: () => lock.release() };
};

/**
 * A deadlock the register loses: one transaction inserts the name and rolls
 * back while the register and a heavier transaction (it wrote a row before)
 * both wait to insert it; both then hold a shared lock and want it exclusive.
 */
const registerDeadlock: Fault = async (ctx) => {
  const first = await holding(bench, [
    ['INSERT INTO users (username, password) VALUES (?, ?)', [ctx.user.username, 'first']],
  ]);
  const heavier = await holding(bench, [
    ['INSERT INTO users (username, password) VALUES (?, ?)', [uniqueName('heavier'), 'x']],
  ]);
  const raced = (async () => {
    await runningSeen(bench.direct.pool, 'INSERT INTO users');
    const seenAt = Date.now();
    const waiting = heavier.holder.query('INSERT INTO users (username, password) VALUES (?, ?)', [
      ctx.user.username,
      'heavier',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await first.release();
    // The heavier one's INSERT goes through at once: the register was the deadlock's
    // victim, well before its lock wait (a second) would have run out.
    await waiting;
    expect(Date.now() - seenAt).toBeLessThan(900);
  })();
  return {
    async over() {
      await raced;
      await heavier.release();
    },
  };
};

/**
 * A deadlock the change loses: another transaction holds the user's
 * password_changes row (and wrote another row, so it weighs more), the change
 * holds the user's row and waits for it, then the other asks for the user's row.
 */
const changeDeadlock: Fault = async (ctx) => {
  const other = await holding(bench, [
    ['INSERT INTO password_changes (user_id, changed_at) VALUES (?, NOW(3))', [ctx.user.id]],
    [
      'INSERT INTO password_changes (user_id, changed_at) VALUES (?, NOW(3))',
      [ctx.user.id + 1_000_000],
    ],
  ]);
  const raced = (async () => {
    await runningSeen(bench.direct.pool, 'INSERT INTO password_changes');
    const seenAt = Date.now();
    // Granted at once: the change was the deadlock's victim, and rolled back, well
    // before its lock wait (a second) would have run out.
    await other.holder.query('SELECT id FROM users WHERE id = ? FOR UPDATE', [ctx.user.id]);
    expect(Date.now() - seenAt).toBeLessThan(900);
  })();
  return {
    async over() {
      await raced;
      await other.release();
    },
  };
};

/**
 * MySQL gone for a login once its session is written: the login's OPEN is held
 * in the Redis proxy while MySQL's connections are cut and refused.
 */
const mysqlDownAfterSession: Fault = () => {
  const stall = bench.redisProxy.fault(OPEN, 'stall');
  stall.met.then(() => {
    bench.mysqlProxy.refuse(true);
    bench.mysqlProxy.cutAll();
    stall.release();
  });
  return { over: () => bench.mysqlProxy.refuse(false) };
};

type Expected = 'done' | 'failed' | 'failed, retry after' | 'unknown';

const ua = (ctx: Ctx) => ctx.ua;

const matrix: [route: string, fault: string, expected: Expected, make: Fault][] = [
  [
    'register',
    'a lock wait past the timeout (the name held by another transaction)',
    'failed, retry after',
    nameHeld,
  ],
  ['register', 'a deadlock', 'failed, retry after', registerDeadlock],
  [
    'register',
    'MySQL cut before the INSERT arrives',
    'unknown',
    mysqlCut((ctx) => ctx.user.username, 'cut-before'),
  ],
  [
    'register',
    'MySQL cut after the INSERT, before its answer',
    'unknown',
    mysqlCut((ctx) => ctx.user.username, 'cut-after'),
  ],
  [
    'register',
    'MySQL restarted in the middle of the INSERT',
    'unknown',
    mysqlRestartedAt((ctx) => ctx.user.username),
  ],

  [
    'login',
    'Redis gone between the session and its index',
    'unknown',
    redisGone((ctx) => indexOf(ctx.user.username), 'cut-before'),
  ],
  [
    'login',
    "Redis's answer to the index lost, and Redis gone",
    'unknown',
    redisGone((ctx) => indexOf(ctx.user.username), 'cut-after'),
  ],
  [
    'login',
    'the connection to Redis cut before the index (Redis back at once)',
    'failed',
    redisBlip((ctx) => indexOf(ctx.user.username)),
  ],
  ['login', 'MySQL gone once the session is written', 'failed', mysqlDownAfterSession],
  ['login', 'MySQL cut before the login event arrives', 'unknown', mysqlCut(ua, 'cut-before')],
  [
    'login',
    'MySQL cut after the login event, before its answer',
    'unknown',
    mysqlCut(ua, 'cut-after'),
  ],
  ['login', 'MySQL restarted in the middle of the login event', 'unknown', mysqlRestartedAt(ua)],
  ['login', "the user's row held by another transaction", 'done', userRowHeld],

  [
    'second step',
    'the connection to Redis cut before the index (Redis back at once)',
    'failed',
    redisBlip((ctx) => indexOf(ctx.user.username)),
  ],
  [
    'second step',
    'Redis gone between the session and its index',
    'unknown',
    redisGone((ctx) => indexOf(ctx.user.username), 'cut-before'),
  ],
  ['second step', 'MySQL gone once the session is written', 'failed', mysqlDownAfterSession],
  [
    'second step',
    'MySQL cut before the code is spent',
    'failed',
    mysqlCut(() => 'UPDATE user_totp SET last_step', 'cut-before'),
  ],
  [
    'second step',
    'MySQL cut before the COMMIT arrives',
    'unknown',
    mysqlCut(() => COMMIT, 'cut-before'),
  ],

  [
    'logout',
    'Redis gone before the ending',
    'unknown',
    redisGone((ctx) => endOf(ctx.tokens[0] as string), 'cut-before'),
  ],
  [
    'logout',
    "Redis's answer to the ending lost, and Redis gone",
    'unknown',
    redisGone((ctx) => endOf(ctx.tokens[0] as string), 'cut-after'),
  ],
  ['logout', 'MySQL down', 'failed', mysqlDown],
  ['logout', 'MySQL cut before the event arrives', 'unknown', mysqlCut(ua, 'cut-before')],
  ['logout', 'MySQL restarted in the middle of the event', 'unknown', mysqlRestartedAt(ua)],
  ['logout', "the user's row held by another transaction", 'done', userRowHeld],

  [
    'logout-all',
    'Redis gone before the other sessions end',
    'unknown',
    redisGone((ctx) => endOf(ctx.tokens[1] as string), 'cut-before'),
  ],
  [
    'logout-all',
    'Redis gone between the others and the current session',
    'unknown',
    redisGone((ctx) => endOf(ctx.tokens[0] as string), 'cut-before'),
  ],
  [
    'logout-all',
    "Redis's answer to the last ending lost, and Redis gone",
    'unknown',
    redisGone((ctx) => endOf(ctx.tokens[0] as string), 'cut-after'),
  ],
  ['logout-all', 'MySQL down', 'failed', mysqlDown],
  [
    'logout-all',
    'MySQL cut after the event, before its answer',
    'unknown',
    mysqlCut(ua, 'cut-after'),
  ],
  ['logout-all', "the user's row held by another transaction", 'done', userRowHeld],

  [
    'end one session',
    'Redis gone before the ending',
    'unknown',
    redisGone((ctx) => endOf(ctx.tokens[1] as string), 'cut-before'),
  ],
  [
    'end one session',
    "Redis's answer to the ending lost, and Redis gone",
    'unknown',
    redisGone((ctx) => endOf(ctx.tokens[1] as string), 'cut-after'),
  ],
  ['end one session', 'MySQL down', 'failed', mysqlDown],
  ['end one session', "the user's row held by another transaction", 'done', userRowHeld],

  [
    'end the others',
    'Redis gone before the endings',
    'unknown',
    redisGone((ctx) => endOf(ctx.tokens[1] as string), 'cut-before'),
  ],
  [
    'end the others',
    "Redis's answer to the endings lost, and Redis gone",
    'unknown',
    redisGone((ctx) => endOf(ctx.tokens[1] as string), 'cut-after'),
  ],
  ['end the others', 'MySQL down', 'failed', mysqlDown],
  ['end the others', "the user's row held by another transaction", 'done', userRowHeld],

  [
    'change password',
    "a lock wait past the timeout (the user's row held)",
    'failed, retry after',
    userRowHeld,
  ],
  ['change password', 'a deadlock', 'failed, retry after', changeDeadlock],
  [
    'change password',
    'MySQL cut before the UPDATE arrives',
    'failed',
    mysqlCut(() => 'UPDATE users SET password', 'cut-before'),
  ],
  [
    'change password',
    'MySQL cut before the COMMIT arrives',
    'unknown',
    mysqlCut(() => COMMIT, 'cut-before'),
  ],
  [
    'change password',
    'MySQL cut after the COMMIT, before its answer',
    'unknown',
    mysqlCut(() => COMMIT, 'cut-after'),
  ],
  [
    'change password',
    'MySQL restarted in the middle of the COMMIT',
    'unknown',
    mysqlRestartedAt(() => COMMIT),
  ],
  [
    'change password',
    'Redis gone between the new password and the endings',
    'unknown',
    redisGone((ctx) => credentialsOf(ctx.user.username), 'cut-before'),
  ],
  [
    'change password',
    'Redis gone before the current session ends, the others ended',
    'unknown',
    redisGone((ctx) => endOf(ctx.tokens[0] as string), 'cut-before'),
  ],
  [
    'change password',
    "Redis's answer to the last ending lost, and Redis gone",
    'unknown',
    redisGone((ctx) => endOf(ctx.tokens[0] as string), 'cut-after'),
  ],
];

async function arrange(route: Route): Promise<Ctx> {
  const app = await bench.app();
  const password = `pw-${randomBytes(6).toString('hex')}`;
  const ctx: Ctx = {
    app,
    user: { id: 0, username: uniqueName('fault'), password },
    tokens: [],
    ua: `fault-${randomBytes(8).toString('hex')}`,
    newPassword: `new-${randomBytes(6).toString('hex')}`,
  };
  if (route.sessions < 0) return ctx;
  const registered = await request(app).post('/api/user/register').send(ctx.user);
  expect(registered.status).toBe(200);
  ctx.user.id = registered.body.data.id;
  for (let i = 0; i < route.sessions; i++) {
    const res = await request(app).post('/api/user/login').send(ctx.user);
    expect(res.status).toBe(200);
    ctx.tokens.push(res.body.data.token);
  }
  await route.prepare?.(ctx);
  return ctx;
}

/** Sends `send` until Redis and MySQL answer the app again (a store outage is a 503 in either words). */
async function settled(send: () => PromiseLike<request.Response>): Promise<request.Response> {
  let res = await send();
  for (
    let tries = 0;
    res.status === 503 && res.body?.message === UNAVAILABLE.message && tries < 50;
    tries++
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    res = await send();
  }
  return res;
}

describe('every auth write route at every fault point: the answer, the stores, a retry', () => {
  it.each(matrix)('%s, %s: %s', async (name, _fault, expected, make) => {
    const route = routes[name] as Route;
    const ctx = await arrange(route);
    const armed = await make(ctx);
    let res: request.Response;
    try {
      res = await route.send(ctx);
    } finally {
      await armed.over();
    }

    const effect = await route.effect(ctx);
    if (expected === 'done') {
      expect([res.status, res.body]).toEqual([route.done.status, route.done.body]);
      expect(effect).toBe('all');
    } else if (expected === 'unknown') {
      expect([res.status, res.body, res.headers['retry-after']]).toEqual([503, UNKNOWN, '1']);
    } else {
      expect([res.status, res.body]).toEqual([503, UNAVAILABLE]);
      expect(res.headers['retry-after']).toBe(expected === 'failed' ? undefined : '1');
      expect(effect).toBe('none');
    }

    // The same request again, once the stores answer: it finishes what was left, or tells it is done.
    const again = await settled(() => route.send(ctx));
    const wanted = effect === 'all' ? route.again : route.done;
    expect([again.status, again.body]).toEqual([wanted.status, wanted.body]);
    expect(await route.effect(ctx)).toBe('all');
    if (name === 'register') {
      // A retry of a register that had committed answers its account, not a second one.
      const [rows] = await bench.direct.pool.query<RowDataPacket[]>(
        'SELECT id FROM users WHERE username = ?',
        [ctx.user.username],
      );
      expect(rows).toHaveLength(1);
      expect(again.body.data).toEqual({ id: rows[0]?.id, username: ctx.user.username });
    }
  });
});
