import { randomBytes } from 'node:crypto';
import {
  createTestDatabase,
  mysqlVariables,
  parsePrometheusText,
  sampleValue,
  startRedisServer,
  type TestDatabase,
  type TestServer,
} from '@svc/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthOnCluster, authOnCluster } from './support/auth-on-cluster.js';
import { type ServiceProcess, startService } from './support/service-process.js';

/*
 * One account guessed from 200 addresses, against two real auth processes
 * sharing one Redis and one MySQL (and one process on a three-master Redis
 * Cluster): the username's budget holds across instances, the password is
 * checked no more than ACCOUNT_MAX_FAILURES times (each process's
 * auth_password_checks_total, summed), the owner's device still logs in, and
 * an unknown username gets the same answers.
 */

interface Answer {
  status: number;
  body: { code: number; message: string; data?: Record<string, unknown> };
  retryAfter: number | undefined;
}

async function loginAt(
  base: string,
  body: { username: string; password: string },
  from: string,
  device?: string,
): Promise<Answer> {
  const res = await fetch(`${base}/api/user/login`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': from,
      ...(device ? { 'x-device-token': device } : {}),
    },
    body: JSON.stringify(body),
  });
  const retryAfter = res.headers.get('retry-after');
  return {
    status: res.status,
    body: (await res.json()) as Answer['body'],
    retryAfter: retryAfter === null ? undefined : Number(retryAfter),
  };
}

async function passwordChecks(services: ServiceProcess[]): Promise<number> {
  let sum = 0;
  for (const service of services) {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    sum += sampleValue(parsePrometheusText(text), 'auth_password_checks_total');
  }
  return sum;
}

const address = (i: number) => `${i < 250 ? '198.51.100' : '203.0.113'}.${(i % 250) + 1}`;
const WRONG = { code: 401, message: '用户名或密码错误' };
const LOCKED = { code: 429, message: '登录失败次数过多,请稍后再试' };

/** One wrong guess from each of `count` addresses, 40 in flight, spread over the services. */
async function guessFromMany(services: ServiceProcess[], username: string, count: number) {
  const answers: Answer[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const service = services[i % services.length] as ServiceProcess;
      answers.push(await loginAt(service.url, { username, password: `guess-${i}` }, address(i)));
    }
  };
  await Promise.all(Array.from({ length: 40 }, worker));
  return answers;
}

const settings = { TRUST_PROXY: 'loopback', LOG_LEVEL: 'trace' };

describe('200 addresses against one account, two auth processes', () => {
  let redis: TestServer;
  let db: TestDatabase;
  let services: ServiceProcess[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    db = await createTestDatabase();
    const env = { ...mysqlVariables(db.settings), REDIS_URL: redis.url, ...settings };
    // One after the other: the first applies the migrations (and makes the device secret).
    services.push(await startService('auth', env));
    services.push(await startService('auth', env));
  });

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    services = [];
    await redis?.stop();
    await db?.drop();
  });

  it('reaches the password check 20 times; the owner’s device gets in; an unknown name looks the same', async () => {
    const [first, second] = services as [ServiceProcess, ServiceProcess];
    const owner = { username: `owner_${randomBytes(4).toString('hex')}`, password: 'owner-pass-1' };
    const registered = await fetch(`${first.url}/api/user/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(owner),
    });
    expect(registered.status).toBe(200);
    const before = await loginAt(first.url, owner, '192.0.2.1');
    const device = before.body.data?.deviceToken as string;
    expect(device).toMatch(/^[A-Za-z0-9_-]{50}$/);
    const checksBefore = await passwordChecks(services);

    const answers = await guessFromMany(services, owner.username, 200);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(20);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(180);
    for (const answer of answers) {
      expect(answer.body).toEqual(answer.status === 401 ? WRONG : LOCKED);
      if (answer.status === 429) expect(answer.retryAfter).toBeGreaterThan(0);
    }
    expect((await passwordChecks(services)) - checksBefore).toBe(20);

    // The right password from a new address and device: refused, unchecked.
    const stranger = await loginAt(second.url, owner, '192.0.2.2');
    expect(stranger.status).toBe(429);
    expect((await passwordChecks(services)) - checksBefore).toBe(20);
    // The owner's device, on the other instance than the one that made its token.
    const known = await loginAt(second.url, owner, '192.0.2.3', device);
    expect(known.status).toBe(200);
    expect(known.body.data?.deviceToken).toBe(device);

    // An unknown username: the same answers, and as many checks.
    const ghost = `ghost_${randomBytes(4).toString('hex')}`;
    const ghostBefore = await passwordChecks(services);
    const ofGhost = await guessFromMany(services, ghost, 200);
    expect(ofGhost.filter((a) => a.status === 401)).toHaveLength(20);
    expect(ofGhost.filter((a) => a.status === 429)).toHaveLength(180);
    for (const answer of ofGhost)
      expect(answer.body).toEqual(answer.status === 401 ? WRONG : LOCKED);
    expect((await passwordChecks(services)) - ghostBefore).toBe(20);
    const ghostRight = await loginAt(second.url, { username: ghost, password: 'x' }, '192.0.2.2');
    expect({ ...ghostRight, retryAfter: 0 }).toEqual({ ...stranger, retryAfter: 0 });

    // Neither process wrote the device token, a session token or a password to its log.
    const token = known.body.data?.token as string;
    for (const service of services) {
      for (const secret of [device, token, owner.password]) {
        expect(service.output()).not.toContain(secret);
      }
    }
  });
});

describe('the account budget on a three-master Redis Cluster', () => {
  let deployment: AuthOnCluster;
  let auth: ServiceProcess;

  beforeAll(async () => {
    deployment = await authOnCluster({
      ACCOUNT_MAX_FAILURES: '6',
      LOGIN_MAX_FAILURES: '3',
      ...settings,
    });
    auth = deployment.auth;
  });

  afterAll(async () => {
    await deployment?.stop();
  });

  it('counts pairs, the account and devices in one script, with no cross-slot error', async () => {
    const owner = { username: `cl_${randomBytes(4).toString('hex')}`, password: 'cluster-pass-1' };
    await fetch(`${auth.url}/api/user/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(owner),
    });
    const device = (await loginAt(auth.url, owner, '192.0.2.1')).body.data?.deviceToken as string;
    const answers = await guessFromMany([auth], owner.username, 30);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(6);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(24);
    expect((await loginAt(auth.url, owner, '192.0.2.2')).status).toBe(429);
    // The device: three failures lock it, the right password then gets 429 on it alone.
    for (let i = 0; i < 3; i++) {
      const wrong = { ...owner, password: 'wrong' };
      expect((await loginAt(auth.url, wrong, '192.0.2.3', device)).status).toBe(401);
    }
    expect((await loginAt(auth.url, owner, '192.0.2.3', device)).status).toBe(429);
    expect(auth.output()).not.toContain('CROSSSLOT');
  });
});
