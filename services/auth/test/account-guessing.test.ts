import { createHmac } from 'node:crypto';
import { createMetrics } from '@svc/common';
import { parsePrometheusText, recordResponses, sampleValue } from '@svc/test-kit';
import type { Express } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { AuthSettings } from '../src/config.js';
import { accountFailuresKey, deviceFailuresKey } from '../src/users/login-limiter.js';
import { suiteStores } from './support/suite-setup.js';
import {
  buildApp,
  DEVICE_TOKEN,
  registerUser,
  TOO_MANY,
  testLogs,
  uniqueName,
  WRONG_CREDENTIALS,
} from './support/test-app.js';

/*
 * Guessing one account from many addresses: the username's budget across all
 * addresses (ACCOUNT_MAX_FAILURES), and device tokens, which keep a known
 * device in and count its failures against that device alone. Addresses are
 * told through X-Forwarded-For from the trusted loopback proxy.
 */

const stores = suiteStores();
const BEHIND_PROXY: Partial<AuthSettings> = { trustProxy: ['loopback'] };

interface Attempt {
  from?: string;
  device?: string;
}

function attempt(app: Express, username: string, password: string, { from, device }: Attempt = {}) {
  const req = request(app).post('/api/user/login');
  if (from) req.set('X-Forwarded-For', from);
  if (device) req.set('X-Device-Token', device);
  return req.send({ username, password });
}

/** 198.51.100.0/24 and 203.0.113.0/24, then 192.0.2.0/24: documentation addresses. */
const address = (i: number) =>
  `${['198.51.100', '203.0.113', '192.0.2'][Math.floor(i / 250)]}.${(i % 250) + 1}`;

/** The app with metrics, so its password checks can be counted from outside. */
function appWithMetrics(settings: Partial<AuthSettings> = {}) {
  const metrics = createMetrics({ pool: stores.pool });
  const logger = testLogs('auth').logger;
  const app = recordResponses(
    createApp({ ...stores, logger, metrics, settings: { ...BEHIND_PROXY, ...settings } }),
  );
  const passwordChecks = async () => {
    const res = await request(app).get('/metrics');
    return sampleValue(parsePrometheusText(res.text), 'auth_password_checks_total');
  };
  return { app, passwordChecks };
}

/** Logs in with the right password and answers the device token it was given. */
async function deviceTokenOf(app: Express, username: string, password: string, from?: string) {
  const res = await attempt(app, username, password, { from });
  expect(res.status).toBe(200);
  return res.body.data.deviceToken as string;
}

/** In flight at once: more would meet the MySQL pool's queue limit (a 503) before the limiter. */
const IN_FLIGHT = 40;

/** One wrong guess from each of `count` addresses, IN_FLIGHT at a time. */
async function guessFromMany(app: Express, username: string, count: number) {
  const answers: request.Response[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      answers.push(await attempt(app, username, `guess-${i}`, { from: address(i) }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count) }, worker));
  return answers;
}

describe('a username guessed from many addresses', () => {
  it('lets 200 addresses reach the password check 20 times, then answers 429 without a check', async () => {
    const { app, passwordChecks } = appWithMetrics();
    const owner = await registerUser(app);
    const device = await deviceTokenOf(app, owner.username, owner.password, '192.0.2.250');
    const before = await passwordChecks();

    const answers = await guessFromMany(app, owner.username, 200);
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(20).fill(401), ...Array(180).fill(429)]);
    for (const res of answers) {
      expect(res.body).toEqual(res.status === 401 ? WRONG_CREDENTIALS : TOO_MANY);
      if (res.status === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect((await passwordChecks()) - before).toBe(20);

    // An address that never failed, even with the right password: the budget is spent.
    const fresh = await attempt(app, owner.username, owner.password, { from: '192.0.2.251' });
    expect(fresh.status).toBe(429);
    expect(fresh.body).toEqual(TOO_MANY);
    expect(Number(fresh.headers['retry-after'])).toBeGreaterThan(895);
    expect((await passwordChecks()) - before).toBe(20);

    // The owner, on the device that logged in before, is still let in, from any address.
    const known = await attempt(app, owner.username, owner.password, {
      from: '192.0.2.252',
      device,
    });
    expect(known.status).toBe(200);
    expect(known.body.data).toEqual({
      token: expect.stringMatching(/^[0-9a-f]{64}$/),
      expiresIn: 3600,
      deviceToken: device,
    });
    expect(
      await request(app).get('/api/user/me').set('token', known.body.data.token),
    ).toMatchObject({ status: 200 });
  });

  it('counts the budget across instances, and lets a device token of one instance in on another', async () => {
    const first = appWithMetrics({ accountMaxFailures: 6 });
    const second = appWithMetrics({ accountMaxFailures: 6 });
    const owner = await registerUser(first.app);
    const device = await deviceTokenOf(first.app, owner.username, owner.password);
    const checks = async () => (await first.passwordChecks()) + (await second.passwordChecks());
    const before = await checks();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        attempt(i % 2 ? first.app : second.app, owner.username, 'nope', { from: address(i) }),
      ),
    );
    expect(answers.filter((res) => res.status === 401)).toHaveLength(6);
    expect(answers.filter((res) => res.status === 429)).toHaveLength(24);
    expect((await checks()) - before).toBe(6);
    const res = await attempt(second.app, owner.username, owner.password, { device });
    expect(res.status).toBe(200);
  });

  it('refuses no right password before the budget is recorded, however many guesses are in flight', async () => {
    const app = buildApp(stores, { ...BEHIND_PROXY, accountMaxFailures: 3 }).app;
    const owner = await registerUser(app);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        attempt(app, owner.username, owner.password, { from: address(i) }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(20).fill(200));
    expect(await stores.redis.exists(accountFailuresKey(owner.username))).toBe(0);
  });

  it('ends the budget’s lock after LOGIN_LOCK_SECONDS', async () => {
    const app = buildApp(stores, {
      ...BEHIND_PROXY,
      accountMaxFailures: 2,
      loginWindowSeconds: 1,
      loginLockSeconds: 2,
    }).app;
    const owner = await registerUser(app);
    await guessFromMany(app, owner.username, 2);
    const locked = await attempt(app, owner.username, owner.password, { from: '192.0.2.200' });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 2200));
    const after = await attempt(app, owner.username, owner.password, { from: '192.0.2.200' });
    expect(after.status).toBe(200);
  });
});

describe('an unknown username', () => {
  /** What a client sees of an answer: everything but the request id and the date. */
  const seen = (res: request.Response) => {
    const { 'x-request-id': _id, date: _date, 'retry-after': retryAfter, ...headers } = res.headers;
    return { status: res.status, body: res.body, headers, retryAfter: Number(retryAfter ?? 0) };
  };

  it('is counted and locked exactly as a known one: the same answers in the same order', async () => {
    const { app, passwordChecks } = appWithMetrics({ accountMaxFailures: 8 });
    const known = await registerUser(app);
    const ghost = uniqueName('ghost');
    const run = async (username: string) => {
      const answers: ReturnType<typeof seen>[] = [];
      // Eight addresses, two guesses each, then the known user's right password from a ninth.
      for (let i = 0; i < 16; i++) {
        answers.push(seen(await attempt(app, username, `guess-${i}`, { from: address(i % 8) })));
      }
      answers.push(seen(await attempt(app, username, known.password, { from: address(9) })));
      return answers;
    };
    const before = await passwordChecks();
    const ofKnown = await run(known.username);
    const ofGhost = await run(ghost);
    expect((await passwordChecks()) - before).toBe(16);
    expect(ofKnown.map(({ status }) => status)).toEqual([
      ...Array(8).fill(401),
      ...Array(9).fill(429),
    ]);
    for (const [i, answer] of ofGhost.entries()) {
      const other = ofKnown[i] as ReturnType<typeof seen>;
      expect({ ...answer, retryAfter: 0 }).toEqual({ ...other, retryAfter: 0 });
      expect(Math.abs(answer.retryAfter - other.retryAfter)).toBeLessThanOrEqual(2);
    }
    expect(await stores.redis.hget(accountFailuresKey(ghost), 'failures')).toBe('8');
  });

  it('takes as long to refuse when locked as a known username', async () => {
    const app = buildApp(stores, { ...BEHIND_PROXY, accountMaxFailures: 1 }).app;
    const known = await registerUser(app);
    const ghost = uniqueName('ghost');
    await attempt(app, known.username, 'wrong', { from: address(0) });
    await attempt(app, ghost, 'wrong', { from: address(0) });
    const median = async (username: string) => {
      const times: number[] = [];
      for (let i = 0; i < 9; i++) {
        const started = performance.now();
        expect((await attempt(app, username, 'x', { from: address(i) })).status).toBe(429);
        times.push(performance.now() - started);
      }
      return times.sort((a, b) => a - b)[4] as number;
    };
    const ofKnown = await median(known.username);
    const ofGhost = await median(ghost);
    // No password check on either: a few milliseconds, and about the same.
    expect(ofKnown).toBeLessThan(50);
    expect(Math.abs(ofGhost - ofKnown)).toBeLessThan(Math.max(ofKnown, 3));
  });
});

describe('device tokens', () => {
  const app = () => buildApp(stores, { ...BEHIND_PROXY, accountMaxFailures: 10 }).app;

  it('answers a device token on every login, the same one back when a valid one came', async () => {
    const server = app();
    const owner = await registerUser(server);
    const first = await attempt(server, owner.username, owner.password);
    expect(first.body.data.deviceToken).toEqual(DEVICE_TOKEN);
    const again = await attempt(server, owner.username, owner.password, {
      device: first.body.data.deviceToken,
    });
    expect(again.body.data.deviceToken).toBe(first.body.data.deviceToken);
    const other = await attempt(server, owner.username, owner.password);
    expect(other.body.data.deviceToken).not.toBe(first.body.data.deviceToken);
  });

  it('locks one device after LOGIN_MAX_FAILURES while another device of the user logs in', async () => {
    const server = app();
    const owner = await registerUser(server);
    const laptop = await deviceTokenOf(server, owner.username, owner.password, address(1));
    const phone = await deviceTokenOf(server, owner.username, owner.password, address(2));

    for (let i = 0; i < 5; i++) {
      const res = await attempt(server, owner.username, 'typo', {
        from: address(1),
        device: laptop,
      });
      expect(res.body).toEqual(WRONG_CREDENTIALS);
    }
    const locked = await attempt(server, owner.username, owner.password, {
      from: address(1),
      device: laptop,
    });
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual(TOO_MANY);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(895);

    // The phone, even from the laptop's address; and a new device from it: neither was counted.
    expect(
      (await attempt(server, owner.username, owner.password, { from: address(1), device: phone }))
        .status,
    ).toBe(200);
    expect(
      (await attempt(server, owner.username, owner.password, { from: address(1) })).status,
    ).toBe(200);
    expect(await stores.redis.exists(accountFailuresKey(owner.username))).toBe(0);
    const deviceKeys = await stores.redis.keys(deviceFailuresKey(owner.username, '*'));
    expect(deviceKeys).toHaveLength(1);
    expect(await stores.redis.hget(deviceKeys[0] as string, 'failures')).toBe('5');
  });

  it('counts a forged, altered or other user’s device token as none', async () => {
    const server = app();
    const owner = await registerUser(server);
    const stranger = await registerUser(server);
    const device = await deviceTokenOf(server, owner.username, owner.password);
    const foreign = await deviceTokenOf(server, stranger.username, stranger.password);
    const flip = (text: string, at: number) =>
      text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const fakes = [
      foreign,
      flip(device, 10),
      flip(device, device.length - 3),
      device.slice(0, -1),
      `${device}A`,
      'x'.repeat(50),
      '',
    ];
    for (const [i, fake] of fakes.entries()) {
      const res = await attempt(server, owner.username, 'wrong', {
        from: address(i),
        device: fake,
      });
      expect(res.body).toEqual(WRONG_CREDENTIALS);
    }
    // Each counted against its address and the account, none against a device.
    expect(await stores.redis.hget(accountFailuresKey(owner.username), 'failures')).toBe(
      String(fakes.length),
    );
    expect(await stores.redis.keys(deviceFailuresKey(owner.username, '*'))).toEqual([]);
    const login = await attempt(server, owner.username, owner.password, { device: foreign });
    expect(login.body.data.deviceToken).not.toBe(foreign);
  });

  it('lets a valid device token in past a spent budget, but not past the device’s own lock', async () => {
    const server = app();
    const owner = await registerUser(server);
    const device = await deviceTokenOf(server, owner.username, owner.password);
    await guessFromMany(server, owner.username, 10);
    expect(
      (await attempt(server, owner.username, owner.password, { from: address(50) })).status,
    ).toBe(429);
    const wrong = await attempt(server, owner.username, 'wrong', { device });
    expect(wrong.body).toEqual(WRONG_CREDENTIALS);
    expect((await attempt(server, owner.username, owner.password, { device })).status).toBe(200);
  });

  it('ends with the password: a token from before a change, or a reset, counts as none', async () => {
    const server = app();
    const owner = await registerUser(server);
    const before = await deviceTokenOf(server, owner.username, owner.password);
    const login = await attempt(server, owner.username, owner.password, { device: before });
    const changed = await request(server)
      .post('/api/user/change-password')
      .set('Authorization', `Bearer ${login.body.data.token}`)
      .send({ oldPassword: owner.password, newPassword: 'the-new-password' });
    expect(changed.status).toBe(200);
    const after = await deviceTokenOf(server, owner.username, 'the-new-password');
    await guessFromMany(server, owner.username, 10);
    // The budget is spent: only a device token of the password as it is now lets the owner in.
    const old = await attempt(server, owner.username, 'the-new-password', { device: before });
    expect([old.status, old.body]).toEqual([429, TOO_MANY]);
    const current = await attempt(server, owner.username, 'the-new-password', { device: after });
    expect(current.status).toBe(200);
    expect(current.body.data.deviceToken).toBe(after);

    // An administrator's reset, straight in the table: the same.
    await stores.pool.query('UPDATE users SET password = ? WHERE id = ?', [
      '0123456789abcdef0123456789abcdef',
      owner.id,
    ]);
    const reset = await attempt(server, owner.username, 'the-new-password', { device: after });
    expect([reset.status, reset.body]).toEqual([429, TOO_MANY]);
  });

  it('keeps a token of the first version good until its user’s password changes', async () => {
    const server = app();
    const owner = await registerUser(server);
    await deviceTokenOf(server, owner.username, owner.password);
    const [[row]] = (await stores.pool.query(
      "SELECT secret FROM auth_secrets WHERE name = 'device'",
    )) as unknown as [[{ secret: Buffer }]];
    // What the service made before tokens named the password: version 1, no hash signed.
    const signed = Buffer.alloc(21);
    signed.writeUInt8(1, 0);
    signed.writeUInt32BE(owner.id, 1);
    const mac = createHmac('sha256', row.secret).update(signed).digest().subarray(0, 16);
    const v1 = Buffer.concat([signed, mac]).toString('base64url');
    await guessFromMany(server, owner.username, 10);
    const kept = await attempt(server, owner.username, owner.password, { device: v1 });
    expect(kept.status).toBe(200);
    // Answered again under today's version, for the same device.
    expect(kept.body.data.deviceToken).not.toBe(v1);
    const changed = await request(server)
      .post('/api/user/change-password')
      .set('Authorization', `Bearer ${kept.body.data.token}`)
      .send({ oldPassword: owner.password, newPassword: 'the-new-password' });
    expect(changed.status).toBe(200);
    const gone = await attempt(server, owner.username, 'the-new-password', { device: v1 });
    expect([gone.status, gone.body]).toEqual([429, TOO_MANY]);
  });

  it('lets the devices of a locked account reach the password check LOGIN_MAX_FAILURES times together, and its last device in', async () => {
    const { app: server, passwordChecks } = appWithMetrics({ accountMaxFailures: 10 });
    const owner = await registerUser(server);
    const devices: string[] = [];
    for (let i = 0; i < 10; i++) {
      devices.push(await deviceTokenOf(server, owner.username, owner.password, address(100 + i)));
    }
    const ownDevice = await deviceTokenOf(server, owner.username, owner.password, address(120));
    await guessFromMany(server, owner.username, 10);
    const before = await passwordChecks();
    const answers: request.Response[] = [];
    for (const [i, device] of devices.entries()) {
      for (let guess = 0; guess < 5; guess++) {
        answers.push(
          await attempt(server, owner.username, `guess-${guess}`, {
            from: address(100 + i),
            device,
          }),
        );
      }
    }
    expect((await passwordChecks()) - before).toBe(5);
    expect(answers.filter((res) => res.status === 401)).toHaveLength(5);
    for (const res of answers.filter((each) => each.status !== 401)) {
      expect([res.status, res.body]).toEqual([429, TOO_MANY]);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Another of them, with the right password: the devices' budget is spent too.
    const other = await attempt(server, owner.username, owner.password, { device: devices[9] });
    expect(other.status).toBe(429);
    // The device that logged in last, and never failed, is the owner's: let in.
    const own = await attempt(server, owner.username, owner.password, { device: ownDevice });
    expect(own.status).toBe(200);
  });

  it('is allowed by CORS preflights', async () => {
    const res = await request(app())
      .options('/api/user/login')
      .set('Origin', 'https://judge.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,x-device-token');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-headers']).toMatch(/x-device-token/i);
  });
});
