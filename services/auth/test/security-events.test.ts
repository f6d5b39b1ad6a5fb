import type { RowDataPacket } from '@svc/common';
import type { Express } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { AuthSettings } from '../src/config.js';
import { listSessions } from './support/sessions.js';
import { suiteStores } from './support/suite-setup.js';
import {
  bearer,
  buildApp,
  login,
  NO_TOKEN,
  registerUser,
  sleep,
  uniqueName,
} from './support/test-app.js';

/*
 * GET /api/user/security-events: what happened to the caller's account, from
 * MySQL, newest first, in cursor pages; never another user's events, never a
 * token or a password.
 */

const stores = suiteStores();
const BEHIND_PROXY: Partial<AuthSettings> = { trustProxy: ['loopback'] };
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/136.0';
const EVENT_ID = /^\d+$/;
const DAY_MS = 24 * 3600 * 1000;

interface SecurityEvent {
  id: string;
  type: string;
  at: string;
  ip: string;
  userAgent: string | null;
  sessionId?: string;
  newDevice?: boolean;
}

function loginFrom(app: Express, body: object, from: string, device?: string) {
  const req = request(app)
    .post('/api/user/login')
    .set('X-Forwarded-For', from)
    .set('User-Agent', BROWSER);
  if (device) req.set('X-Device-Token', device);
  return req.send(body);
}

async function eventsOf(app: Express, token: string, query = ''): Promise<SecurityEvent[]> {
  const res = await request(app).get(`/api/user/security-events${query}`).set(bearer(token));
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ code: 200, message: '获取成功' });
  return res.body.data;
}

/** Every event of the caller, by following the cursors. */
async function walk(app: Express, token: string, pageSize: number) {
  const pages: SecurityEvent[][] = [];
  let query = `?pageSize=${pageSize}`;
  for (;;) {
    const res = await request(app).get(`/api/user/security-events${query}`).set(bearer(token));
    expect(res.status).toBe(200);
    pages.push(res.body.data);
    const next = res.headers['x-next-cursor'];
    if (!next) return pages;
    expect(res.headers.link).toBe(
      `</api/user/security-events?pageSize=${pageSize}&cursor=${next}>; rel="next"`,
    );
    query = `?pageSize=${pageSize}&cursor=${next}`;
  }
}

async function rowsOf(userId: number) {
  const [rows] = await stores.pool.query<RowDataPacket[]>(
    'SELECT * FROM security_events WHERE user_id = ? ORDER BY id',
    [userId],
  );
  return rows;
}

describe('GET /api/user/security-events', () => {
  it('writes every event type, newest first, with the address and User-Agent of each request', async () => {
    const app = buildApp(stores, BEHIND_PROXY).app;
    const { id, username, password } = await registerUser(app);
    const credentials = { username, password };

    const first = await loginFrom(app, credentials, '203.0.113.1');
    const device = first.body.data.deviceToken as string;
    const known = await loginFrom(app, credentials, '203.0.113.2', device);
    for (let i = 0; i < 5; i++) {
      await loginFrom(app, { username, password: 'wrong' }, '198.51.100.9');
    }
    const other = (await loginFrom(app, credentials, '203.0.113.3')).body.data.token as string;
    const current = known.body.data.token as string;
    // The first login's session: the list is newest first.
    const ended = (await listSessions(app, current)).at(-1) as { id: string };
    const endOne = await request(app)
      .delete(`/api/user/sessions/${ended.id}`)
      .set(bearer(current))
      .set('X-Forwarded-For', '203.0.113.4');
    expect(endOne.status).toBe(200);
    await request(app).post('/api/user/logout').set(bearer(other));
    const changed = await request(app)
      .post('/api/user/change-password')
      .set(bearer(current))
      .set('X-Forwarded-For', '203.0.113.5')
      .send({ oldPassword: password, newPassword: 'new-password-1' });
    expect(changed.status).toBe(200);
    const fresh = await login(app, username, 'new-password-1');
    await request(app).post('/api/user/logout-all').set(bearer(fresh));
    const reader = await login(app, username, 'new-password-1');

    const events = await eventsOf(app, reader);
    const types = events.map((event) => event.type);
    expect(types).toEqual([
      'login',
      'logout_all',
      'login',
      'password_changed',
      'session_ended',
      'session_ended',
      'login',
      'locked',
      'login_failed',
      'login_failed',
      'login_failed',
      'login_failed',
      'login_failed',
      'login',
      'login',
    ]);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(
        expect.arrayContaining(['at', 'id', 'ip', 'type', 'userAgent']),
      );
      expect(event.id).toMatch(EVENT_ID);
      expect(new Date(event.at).toISOString()).toBe(event.at);
    }
    const sorted = [...events].sort(
      (a, b) => b.at.localeCompare(a.at) || Number(b.id) - Number(a.id),
    );
    expect(events).toEqual(sorted);

    const oldest = events.at(-1) as SecurityEvent;
    expect(oldest).toEqual({
      id: expect.stringMatching(EVENT_ID),
      type: 'login',
      at: expect.any(String),
      ip: '203.0.113.1',
      userAgent: BROWSER,
      newDevice: true,
      // The session this login opened: the one ended by id below.
      sessionId: ended.id,
    });
    const readerSession = (await listSessions(app, reader)).find((session) => session.current);
    expect(events[0]).toMatchObject({ type: 'login', sessionId: readerSession?.id });
    expect(events.at(-2)).toMatchObject({ type: 'login', ip: '203.0.113.2', newDevice: false });
    expect(events.find((event) => event.type === 'locked')).toMatchObject({ ip: '198.51.100.9' });
    expect(events.find((event) => event.type === 'login_failed')).toEqual({
      id: expect.stringMatching(EVENT_ID),
      type: 'login_failed',
      at: expect.any(String),
      ip: '198.51.100.9',
      userAgent: BROWSER,
    });
    const endings = events.filter((event) => event.type === 'session_ended');
    expect(endings.map((event) => event.sessionId)).toEqual([undefined, ended.id]);
    expect(endings[1]?.ip).toBe('203.0.113.4');
    expect(events.find((event) => event.type === 'password_changed')?.ip).toBe('203.0.113.5');

    // Nothing of a token, a device token or a password in any column of any row.
    const stored = JSON.stringify(await rowsOf(id));
    for (const secret of [password, 'new-password-1', 'wrong', current, other, fresh, device]) {
      expect(stored).not.toContain(secret);
    }
  });

  it('writes an unknown username’s failures as a known one’s, with no user, and nothing for a refused login', async () => {
    const app = buildApp(stores, BEHIND_PROXY).app;
    const typesOfNoUserFrom = async (ip: string) => {
      const [rows] = await stores.pool.query<RowDataPacket[]>(
        'SELECT type FROM security_events WHERE user_id IS NULL AND ip = ? ORDER BY id',
        [ip],
      );
      return rows.map((row) => row.type);
    };
    // Five failures, the lock; the three refused attempts reached no check and wrote nothing.
    const written = [...Array(5).fill('login_failed'), 'locked'];

    const ghost = uniqueName('ghost');
    for (let i = 0; i < 8; i++) {
      await loginFrom(app, { username: ghost, password: 'x' }, '192.0.2.1');
    }
    expect(await typesOfNoUserFrom('192.0.2.1')).toEqual(written);

    const { id, username, password } = await registerUser(app);
    for (let i = 0; i < 8; i++) await loginFrom(app, { username, password: 'x' }, '192.0.2.2');
    expect((await rowsOf(id)).map((row) => row.type)).toEqual(written);
    expect(await typesOfNoUserFrom('192.0.2.2')).toEqual([]);
    // No user's page shows the rows of no user.
    const listed = await eventsOf(app, await login(app, username, password));
    expect(listed.map((event) => event.ip)).toEqual(['127.0.0.1', ...Array(6).fill('192.0.2.2')]);
  });

  it('never shows another user’s events, nor takes another user’s cursor', async () => {
    const app = buildApp(stores).app;
    const alice = await registerUser(app);
    const bob = await registerUser(app);
    for (let i = 0; i < 3; i++) await login(app, alice.username, alice.password);
    const bobToken = await login(app, bob.username, bob.password);
    const aliceToken = await login(app, alice.username, alice.password);

    const ofBob = await eventsOf(app, bobToken);
    expect(ofBob).toHaveLength(1);
    const aliceIds = new Set((await eventsOf(app, aliceToken)).map((event) => event.id));
    expect(aliceIds.size).toBe(4);
    expect(ofBob.some((event) => aliceIds.has(event.id))).toBe(false);

    const page = await request(app)
      .get('/api/user/security-events?pageSize=2')
      .set(bearer(aliceToken));
    const cursor = page.headers['x-next-cursor'];
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const stolen = await request(app)
      .get(`/api/user/security-events?cursor=${cursor}`)
      .set(bearer(bobToken));
    expect(stolen.status).toBe(400);
    expect(stolen.body).toEqual({ code: 400, message: expect.stringMatching(/^cursor: /) });
  });

  it('pages by cursor: every event once, X-Total-Count on the first page, no cursor on the last', async () => {
    const app = buildApp(stores).app;
    const { username, password } = await registerUser(app);
    for (let i = 0; i < 11; i++) await login(app, username, password);
    const token = await login(app, username, password);

    const first = await request(app).get('/api/user/security-events?pageSize=5').set(bearer(token));
    expect(first.headers['x-total-count']).toBe('12');
    const pages = await walk(app, token, 5);
    expect(pages.map((page) => page.length)).toEqual([5, 5, 2]);
    const all = await eventsOf(app, token, '?pageSize=100');
    expect(pages.flat()).toEqual(all);
    expect(new Set(all.map((event) => event.id)).size).toBe(12);

    // A full last page carries no cursor either.
    const exact = await walk(app, token, 6);
    expect(exact.map((page) => page.length)).toEqual([6, 6]);
    // Pages after the first carry no total; 20 by default.
    const second = await request(app)
      .get(`/api/user/security-events?cursor=${first.headers['x-next-cursor']}`)
      .set(bearer(token));
    expect(second.headers['x-total-count']).toBeUndefined();
    expect(second.body.data).toHaveLength(7);
    expect(await eventsOf(app, token)).toHaveLength(12);
  });

  it('refuses a bad pageSize or a tampered cursor with a 400 naming the parameter', async () => {
    const app = buildApp(stores).app;
    const { username, password } = await registerUser(app);
    for (let i = 0; i < 3; i++) await login(app, username, password);
    const token = await login(app, username, password);
    const page = await request(app).get('/api/user/security-events?pageSize=1').set(bearer(token));
    const cursor = page.headers['x-next-cursor'] as string;
    const flip = (at: number) =>
      cursor.slice(0, at) + (cursor[at] === 'A' ? 'B' : 'A') + cursor.slice(at + 1);
    const bad = [
      '?pageSize=0',
      '?pageSize=101',
      '?pageSize=abc',
      '?pageSize=1&pageSize=2',
      `?cursor=${flip(3)}`,
      `?cursor=${flip(cursor.length - 2)}`,
      `?cursor=${cursor.slice(0, -1)}`,
      `?cursor=${cursor}A`,
      '?cursor=not-a-cursor',
      '?cursor=%20',
    ];
    for (const query of bad) {
      const res = await request(app).get(`/api/user/security-events${query}`).set(bearer(token));
      expect(res.status, query).toBe(400);
      const field = query.startsWith('?pageSize') ? 'pageSize' : 'cursor';
      expect(res.body, query).toEqual({ code: 400, message: expect.stringMatching(`^${field}: `) });
    }
  });

  it('is guarded', async () => {
    const app = buildApp(stores).app;
    const res = await request(app).get('/api/user/security-events');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NO_TOKEN);
  });

  it('shows only the last 90 days, and deletes older events, and those of no user after an hour', async () => {
    const { id, username, password } = await registerUser(buildApp(stores).app);
    const insert = (at: Date) =>
      stores.pool.query(
        "INSERT INTO security_events (user_id, type, at, ip) VALUES (?, 'login_failed', ?, '192.0.2.9')",
        [id, at],
      );
    await insert(new Date(Date.now() - 91 * DAY_MS));
    await insert(new Date(Date.now() - 89 * DAY_MS));
    // Failed logins of no user (an unknown username) are kept an hour.
    const noUser = (ip: string, at: Date) =>
      stores.pool.query(
        "INSERT INTO security_events (user_id, type, at, ip) VALUES (NULL, 'login_failed', ?, ?)",
        [at, ip],
      );
    await noUser('192.0.2.10', new Date(Date.now() - 61 * 60 * 1000));
    await noUser('192.0.2.11', new Date(Date.now() - 59 * 60 * 1000));
    const noUserLeft = async () => {
      const [rows] = await stores.pool.query<RowDataPacket[]>(
        "SELECT ip FROM security_events WHERE user_id IS NULL AND ip IN ('192.0.2.10', '192.0.2.11')",
      );
      return rows.map((row) => row.ip);
    };
    // A new instance deletes what is past 90 days after its first write.
    const app = buildApp(stores).app;
    const token = await login(app, username, password);
    const events = await eventsOf(app, token);
    expect(events.map((event) => event.type)).toEqual(['login', 'login_failed']);
    for (let i = 0; i < 50; i++) {
      if ((await rowsOf(id)).length === 2) break;
      await sleep(100);
    }
    expect((await rowsOf(id)).map((row) => row.type)).toEqual(['login_failed', 'login']);
    for (let i = 0; i < 50; i++) {
      if ((await noUserLeft()).length === 1) break;
      await sleep(100);
    }
    expect(await noUserLeft()).toEqual(['192.0.2.11']);
  });
});
