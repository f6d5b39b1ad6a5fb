import { randomBytes } from 'node:crypto';
import {
  createTestDatabase,
  mysqlVariables,
  startRedisSentinel,
  type TestDatabase,
  type TestRedisSentinel,
} from '@svc/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, call, login, register } from './support/auth-client.js';
import { send } from './support/requests.js';
import { type ServiceProcess, startService } from './support/service-process.js';

interface Sample {
  atMs: number;
  /** When the answer came: a request in flight at the kill may fail, one answered before it may not. */
  answeredMs: number;
  status: number;
  message?: string;
}

/*
 * Auth on a Sentinel-managed primary and replica. The primary dies in the middle
 * of guarded traffic; the sentinels promote the replica and the service follows
 * on its own: 503 while there is no primary, 200 after, never a 401, no restart.
 */
describe('auth behind Sentinel through a failover', () => {
  let sentinel: TestRedisSentinel;
  let db: TestDatabase;
  let auth: ServiceProcess;

  beforeAll(async () => {
    sentinel = await startRedisSentinel();
    db = await createTestDatabase();
    auth = await startService('auth', {
      ...mysqlVariables(db.settings),
      REDIS_SENTINELS: sentinel.variable,
      REDIS_SENTINEL_NAME: sentinel.name,
      REDIS_COMMAND_TIMEOUT_MS: '500',
    });
  });

  afterAll(async () => {
    await auth?.stop();
    await sentinel?.destroy();
    await db?.drop();
  });

  it('answers 503 during the switch and 200 after it, with sessions kept', async () => {
    const name = `st-${randomBytes(4).toString('hex')}`;
    await register(auth.url, name, 'sentinel-pass-1');
    const token = await login(auth.url, name, 'sentinel-pass-1');
    await sentinel.sync();

    const samples: Sample[] = [];
    const t0 = Date.now();
    let done = false;
    const traffic = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (!done) {
          const started = Date.now() - t0;
          // A connection per request (as the other load tests send): a pooled
          // keep-alive socket the server has just closed for idling would read
          // as a reset, which is the client's race, not the service's answer.
          // Anything but an answer is recorded, and fails the status check below.
          const outcome = await send(`${auth.url}/api/user/me`, {
            headers: { authorization: `Bearer ${token}` },
          });
          const answered = outcome.kind === 'answered';
          samples.push({
            atMs: started,
            answeredMs: Date.now() - t0,
            status: answered ? outcome.status : -1,
            message: answered ? (outcome.body as Answer['body']).message : outcome.kind,
          });
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }),
    );

    await new Promise((resolve) => setTimeout(resolve, 1000));
    const killedAt = Date.now() - t0;
    const old = await sentinel.stopPrimary('kill');
    const promoted = await sentinel.waitForPrimaryOtherThan(old);
    const promotedAt = Date.now() - t0;
    // Traffic goes on until the service has answered 200 for a while after the switch.
    try {
      await expect
        .poll(() => samples.filter((s) => s.atMs > promotedAt && s.status === 200).length, {
          timeout: 20_000,
          interval: 100,
        })
        .toBeGreaterThan(50);
    } catch (err) {
      // What the service answered and logged, so that a failure here can be told apart.
      const lastAnswers = samples.slice(-5).map((s) => `${s.atMs} ms ${s.status} ${s.message}`);
      throw new Error(
        `no recovery after the promotion at ${promotedAt} ms (killed at ${killedAt} ms)\n` +
          `last answers:\n${lastAnswers.join('\n')}\nauth's log:\n${auth.output().split('\n').slice(-15).join('\n')}`,
        { cause: err },
      );
    } finally {
      done = true;
    }
    await traffic;

    const statuses = new Set(samples.map((s) => s.status));
    expect([...statuses].sort()).toEqual([200, 503]);
    expect(
      samples.filter((s) => s.status === 503).every((s) => s.message === '服务暂不可用,请稍后重试'),
    ).toBe(true);
    expect(samples.filter((s) => s.answeredMs < killedAt).every((s) => s.status === 200)).toBe(
      true,
    );
    const lastOutage = Math.max(...samples.filter((s) => s.status === 503).map((s) => s.atMs));
    expect(lastOutage).toBeGreaterThanOrEqual(killedAt);
    // The tail is all 200: the service found the new primary by itself.
    expect(samples.slice(-40).every((s) => s.status === 200)).toBe(true);
    expect(sentinel.dataPorts).toContain(promoted);
    console.log(
      `sentinel failover: killed at ${killedAt} ms, promoted at ${promotedAt} ms, ` +
        `last 503 at ${lastOutage} ms, ${samples.filter((s) => s.status === 503).length} of ${samples.length} answers 503`,
    );

    // Writes land on the new primary: logout, login, change-password, revoke-all.
    const second = await login(auth.url, name, 'sentinel-pass-1');
    const change = await call(auth.url, '/api/user/change-password', {
      token: second,
      body: { oldPassword: 'sentinel-pass-1', newPassword: 'sentinel-pass-2' },
    });
    expect(change.status).toBe(200);
    expect((await call(auth.url, '/api/user/me', { token })).status).toBe(401);
    const third = await login(auth.url, name, 'sentinel-pass-2');
    expect((await call(auth.url, '/api/user/me', { token: third })).status).toBe(200);
    expect(auth.output()).toContain('redis connection restored');

    // The new primary has never run the session scripts: they are loaded again on first use.
    const fourth = await login(auth.url, name, 'sentinel-pass-2');
    const listed = await call(auth.url, '/api/user/sessions', { token: fourth });
    expect(listed.status).toBe(200);
    expect((listed.body.data as unknown as unknown[]).length).toBe(2);
    const others = await call(auth.url, '/api/user/sessions', { method: 'DELETE', token: fourth });
    expect(others.body).toEqual({ code: 200, message: '已退出其他会话', data: { ended: 1 } });
    expect((await call(auth.url, '/api/user/me', { token: third })).status).toBe(401);
    const all = await call(auth.url, '/api/user/logout-all', { method: 'POST', token: fourth });
    expect(all.body).toEqual({ code: 200, message: '已退出全部会话', data: { ended: 1 } });
    expect((await call(auth.url, '/api/user/me', { token: fourth })).status).toBe(401);
  });
});
