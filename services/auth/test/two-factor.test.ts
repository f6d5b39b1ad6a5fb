import type { RowDataPacket } from '@svc/common';
import { md5Token } from '@svc/session-guard';
import type { Express } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { suiteApp, suiteStores } from './support/suite-setup.js';
import {
  allKeys,
  bearer,
  buildApp,
  DEVICE_TOKEN,
  login,
  registerUser,
  sleep,
  TOO_MANY,
} from './support/test-app.js';
import { codeOf, enrol } from './support/totp.js';

/*
 * TOTP (RFC 6238) and recovery codes: enrolment, the two-step login, a code
 * good once, five tries a challenge, the account's budget, both token
 * schemes. Codes are computed from the secret setup answers, by otpauth as
 * an authenticator app would.
 */

const stores = suiteStores();
const app = suiteApp(stores);

const WRONG_CODE = { code: 401, message: '验证码错误' };
const CHALLENGE_GONE = { code: 401, message: '验证已失效,请重新登录' };
const RECOVERY_CODE = /^[0-9A-Z]{4}(?:-[0-9A-Z]{4}){3}$/;

/** A new user with TOTP on (support/totp.ts). */
async function enrolled(on: Express = app()) {
  const account = await registerUser(on);
  return { ...account, ...(await enrol(on, account)) };
}

/** The first step: the challenge a right password answers. */
async function challengeOf(user: { username: string; password: string }, on = app()) {
  const res = await request(on)
    .post('/api/user/login')
    .send({ username: user.username, password: user.password });
  expect(res.body).toEqual({
    code: 200,
    message: '请输入两步验证码',
    data: { twoFactor: 'totp', challenge: expect.stringMatching(/^[0-9a-f]{64}$/) },
  });
  return res.body.data.challenge as string;
}

const secondStep = (challenge: string, code: string, on = app()) =>
  request(on).post('/api/user/login/2fa').send({ challenge, code });

async function eventTypes(userId: number): Promise<string[]> {
  const [rows] = await stores.pool.query<RowDataPacket[]>(
    'SELECT type FROM security_events WHERE user_id = ? ORDER BY id',
    [userId],
  );
  return rows.map((row) => String(row.type));
}

describe('TOTP enrolment', () => {
  it('sets up a secret with its otpauth:// URI and an SVG QR code, and turns on with a code of it', async () => {
    const account = await registerUser(app());
    const token = await login(app(), account.username, account.password);
    const me = await request(app()).get('/api/user/me').set(bearer(token));
    expect(me.body.data).toEqual({ username: account.username, totp: false });

    const setup = await request(app()).post('/api/user/2fa/totp/setup').set(bearer(token));
    expect(setup.body).toMatchObject({
      code: 200,
      message: '请用验证器扫描二维码,再提交验证码确认',
    });
    const { secret, uri, qrCode } = setup.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const parsed = new URL(uri);
    expect(parsed.protocol).toBe('otpauth:');
    expect(parsed.host).toBe('totp');
    expect(decodeURIComponent(parsed.pathname)).toBe(`/Judge:${account.username}`);
    expect(Object.fromEntries(parsed.searchParams)).toMatchObject({
      secret,
      issuer: 'Judge',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
    expect(qrCode).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>\s*$/s);
    // Not on until confirmed: the login still answers a token.
    expect(await login(app(), account.username, account.password)).toMatch(/^[0-9a-f]{64}$/);

    const wrong = await request(app())
      .post('/api/user/2fa/totp/confirm')
      .set(bearer(token))
      .send({ code: codeOf(secret, 3) });
    expect(wrong.body).toEqual({ code: 400, message: '验证码错误' });
    const confirmed = await request(app())
      .post('/api/user/2fa/totp/confirm')
      .set(bearer(token))
      .send({ code: codeOf(secret) });
    expect(confirmed.status).toBe(200);
    const codes: string[] = confirmed.body.data.recoveryCodes;
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(RECOVERY_CODE);
    expect(new Set(codes).size).toBe(10);
    // Kept only as hashes.
    const [rows] = await stores.pool.query<RowDataPacket[]>(
      'SELECT code_hash FROM recovery_codes WHERE user_id = ?',
      [account.id],
    );
    expect(rows).toHaveLength(10);
    const stored = rows.map((row) => (row.code_hash as Buffer).toString('latin1'));
    for (const code of codes) expect(stored.join('')).not.toContain(code.replace(/-/g, ''));

    const after = await request(app()).get('/api/user/me').set(bearer(token));
    expect(after.body.data).toEqual({ username: account.username, totp: true });
    expect(await eventTypes(account.id)).toContain('totp_enabled');
    const again = await request(app()).post('/api/user/2fa/totp/setup').set(bearer(token));
    expect(again.body).toEqual({ code: 409, message: '两步验证已开启,请先关闭' });
  });

  it('refuses a confirm with nothing set up', async () => {
    const account = await registerUser(app());
    const token = await login(app(), account.username, account.password);
    const res = await request(app())
      .post('/api/user/2fa/totp/confirm')
      .set(bearer(token))
      .send({ code: '123456' });
    expect(res.body).toEqual({ code: 409, message: '请先设置两步验证' });
  });
});

describe('the two-step login', () => {
  it('answers a challenge and no token for the password, the token for the code after', async () => {
    const user = await enrolled();
    const keysBefore = (await allKeys(stores.redis)).filter((key) => key.startsWith('session:'));
    const challenge = await challengeOf(user);
    // No session yet: the guard has nothing to let through.
    const keysAfter = (await allKeys(stores.redis)).filter((key) => key.startsWith('session:'));
    expect(keysAfter).toEqual(keysBefore);

    const res = await secondStep(challenge, codeOf(user.secret, 1));
    expect(res.body).toEqual({
      code: 200,
      message: '登录成功',
      data: {
        token: expect.stringMatching(/^[0-9a-f]{64}$/),
        expiresIn: 3600,
        deviceToken: DEVICE_TOKEN,
      },
    });
    const me = await request(app()).get('/api/user/me').set(bearer(res.body.data.token));
    expect(me.body.data).toEqual({ username: user.username, totp: true });
    expect(await eventTypes(user.id)).toEqual(['login', 'totp_enabled', 'session_ended', 'login']);
    // The challenge is spent with its login.
    expect((await secondStep(challenge, codeOf(user.secret, 1))).body).toEqual(CHALLENGE_GONE);
  });

  it('refuses a code used once already, even within its 30 s, and writes login_2fa_failed', async () => {
    const user = await enrolled();
    // The confirm spent the current step's code.
    const replayed = await secondStep(await challengeOf(user), codeOf(user.secret));
    expect(replayed.body).toEqual(WRONG_CODE);
    expect(await eventTypes(user.id)).toContain('login_2fa_failed');
    const next = codeOf(user.secret, 1);
    expect((await secondStep(await challengeOf(user), next)).status).toBe(200);
    expect((await secondStep(await challengeOf(user), next)).body).toEqual(WRONG_CODE);
  });

  it('takes a code of the step before or after, not of two steps away', async () => {
    const user = await enrolled();
    expect((await secondStep(await challengeOf(user), codeOf(user.secret, 2))).body).toEqual(
      WRONG_CODE,
    );
    expect((await secondStep(await challengeOf(user), codeOf(user.secret, -2))).body).toEqual(
      WRONG_CODE,
    );
    expect((await secondStep(await challengeOf(user), codeOf(user.secret, 1))).status).toBe(200);
  });

  it('ends a challenge after five tries, and one past TWO_FACTOR_CHALLENGE_SECONDS', async () => {
    const user = await enrolled();
    const challenge = await challengeOf(user);
    for (let i = 0; i < 5; i++) {
      expect((await secondStep(challenge, '000000')).body).toEqual(WRONG_CODE);
    }
    expect((await secondStep(challenge, codeOf(user.secret, 1))).body).toEqual(CHALLENGE_GONE);

    // Five wrong codes also locked this user's pair (LOGIN_MAX_FAILURES): another user.
    const other = await enrolled();
    const brief = buildApp(stores, { twoFactorChallengeSeconds: 1 }).app;
    const expiring = await challengeOf(other, brief);
    await sleep(2100);
    expect((await secondStep(expiring, codeOf(other.secret, 1), brief)).body).toEqual(
      CHALLENGE_GONE,
    );
    expect((await secondStep('f'.repeat(64), codeOf(other.secret, 1))).body).toEqual(
      CHALLENGE_GONE,
    );
    expect((await secondStep(await challengeOf(other), codeOf(other.secret, 1))).status).toBe(200);
  });

  it('ends the challenge when the password changes before the second step', async () => {
    const user = await enrolled();
    const challenge = await challengeOf(user);
    const other = await secondStep(await challengeOf(user), codeOf(user.secret, 1));
    const changed = await request(app())
      .post('/api/user/change-password')
      .set(bearer(other.body.data.token))
      .send({ oldPassword: user.password, newPassword: `${user.password}-renewed` });
    expect(changed.status).toBe(200);
    expect((await secondStep(challenge, user.recoveryCodes[0] as string)).body).toEqual(
      CHALLENGE_GONE,
    );
  });

  it('counts wrong codes against the account budget, as wrong passwords', async () => {
    const strict = buildApp(stores, { accountMaxFailures: 3, loginMaxFailures: 10 }).app;
    const user = await enrolled(strict);
    for (let i = 0; i < 3; i++) {
      expect((await secondStep(await challengeOf(user, strict), '000000', strict)).body).toEqual(
        WRONG_CODE,
      );
    }
    const locked = await request(strict)
      .post('/api/user/login')
      .send({ username: user.username, password: user.password });
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual(TOO_MANY);
    expect(await eventTypes(user.id)).toEqual(
      expect.arrayContaining(['login_2fa_failed', 'locked']),
    );
  });

  it("keeps the pair's failures through a right password until its second step succeeds", async () => {
    const strict = buildApp(stores, { loginMaxFailures: 3 }).app;
    const user = await enrolled(strict);
    for (let i = 0; i < 2; i++) {
      const wrong = await request(strict)
        .post('/api/user/login')
        .send({ username: user.username, password: 'not-the-password' });
      expect(wrong.status).toBe(401);
    }
    // The right password ends no run of failures: one wrong code more locks the pair.
    expect((await secondStep(await challengeOf(user, strict), '000000', strict)).body).toEqual(
      WRONG_CODE,
    );
    const locked = await request(strict)
      .post('/api/user/login')
      .send({ username: user.username, password: user.password });
    expect(locked.body).toEqual(TOO_MANY);
  });

  it('lets one of two second steps with one code in at once', async () => {
    const user = await enrolled();
    const [a, b] = [await challengeOf(user), await challengeOf(user)];
    const code = codeOf(user.secret, 1);
    const answers = await Promise.all([secondStep(a, code), secondStep(b, code)]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 401]);
    const [[row]] = await stores.pool.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM security_events WHERE user_id = ? AND type = 'login'",
      [user.id],
    );
    // The confirm's login, and the winner's.
    expect(Number(row?.n)).toBe(2);
  });
});

describe('recovery codes', () => {
  it('log in once each, and renew with the password and a current code', async () => {
    const user = await enrolled();
    const [first, second] = user.recoveryCodes as [string, string];
    const recovered = await secondStep(await challengeOf(user), first.toLowerCase());
    expect(recovered.status).toBe(200);
    expect(await eventTypes(user.id)).toContain('recovery_code_used');
    expect((await secondStep(await challengeOf(user), first)).body).toEqual(WRONG_CODE);

    const token = recovered.body.data.token as string;
    const wrongPassword = await request(app())
      .post('/api/user/2fa/recovery-codes')
      .set(bearer(token))
      .send({ password: 'not-the-password', code: codeOf(user.secret, 1) });
    expect(wrongPassword.body).toEqual({ code: 400, message: '密码或验证码错误' });
    const renewed = await request(app())
      .post('/api/user/2fa/recovery-codes')
      .set(bearer(token))
      .send({ password: user.password, code: codeOf(user.secret, 1) });
    expect(renewed.body).toMatchObject({ code: 200, message: '恢复码已更新,旧恢复码已失效' });
    expect(renewed.body.data.recoveryCodes).toHaveLength(10);
    expect(await eventTypes(user.id)).toContain('recovery_codes_renewed');
    expect((await secondStep(await challengeOf(user), second)).body).toEqual(WRONG_CODE);
    const fresh = renewed.body.data.recoveryCodes[0] as string;
    expect((await secondStep(await challengeOf(user), fresh)).status).toBe(200);
  });
});

describe('turning TOTP off', () => {
  it('takes the password and a current code; logins are one step again', async () => {
    const user = await enrolled();
    const token = (await secondStep(await challengeOf(user), user.recoveryCodes[0] as string)).body
      .data.token as string;
    const wrongCode = await request(app())
      .post('/api/user/2fa/totp/disable')
      .set(bearer(token))
      .send({ password: user.password, code: codeOf(user.secret, 3) });
    expect(wrongCode.body).toEqual({ code: 400, message: '密码或验证码错误' });
    const off = await request(app())
      .post('/api/user/2fa/totp/disable')
      .set(bearer(token))
      .send({ password: user.password, code: codeOf(user.secret, 1) });
    expect(off.body).toEqual({ code: 200, message: '两步验证已关闭' });
    expect(await eventTypes(user.id)).toContain('totp_disabled');
    expect(await login(app(), user.username, user.password)).toMatch(/^[0-9a-f]{64}$/);
    const again = await request(app())
      .post('/api/user/2fa/totp/disable')
      .set(bearer(token))
      .send({ password: user.password, code: codeOf(user.secret, 1) });
    expect(again.body).toEqual({ code: 409, message: '两步验证未开启' });
    const [rows] = await stores.pool.query<RowDataPacket[]>(
      'SELECT COUNT(*) AS n FROM recovery_codes WHERE user_id = ?',
      [user.id],
    );
    expect(Number(rows[0]?.n)).toBe(0);
  });
});

describe('a lost authenticator', () => {
  it('turns TOTP off with the password and a recovery code', async () => {
    const user = await enrolled();
    const [first, second] = user.recoveryCodes as [string, string];
    const token = (await secondStep(await challengeOf(user), first)).body.data.token as string;
    const off = await request(app())
      .post('/api/user/2fa/totp/disable')
      .set(bearer(token))
      .send({ password: user.password, code: second });
    expect(off.body).toEqual({ code: 200, message: '两步验证已关闭' });
    const types = await eventTypes(user.id);
    expect(types.filter((type) => type === 'recovery_code_used')).toHaveLength(2);
    expect(types).toContain('totp_disabled');
    expect(await login(app(), user.username, user.password)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('TOKEN_SCHEME=md5', () => {
  const md5 = suiteApp(stores, { tokenScheme: 'md5' });

  it('refuses setup, saying why', async () => {
    const account = await registerUser(md5());
    const token = await login(md5(), account.username, account.password);
    const res = await request(md5()).post('/api/user/2fa/totp/setup').set(bearer(token));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('TOKEN_SCHEME=md5');
  });

  it('still takes the second step of a user who turned TOTP on before, answering the md5 token', async () => {
    const user = await enrolled();
    const challenge = await challengeOf(user, md5());
    const res = await secondStep(challenge, codeOf(user.secret, 1), md5());
    expect(res.body.data.token).toBe(md5Token(user.username, user.password));
  });
});
