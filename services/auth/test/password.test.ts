import { createHash } from 'node:crypto';
import { isWellFormedToken, md5Token, randomToken, sha256Hex } from '@svc/session-guard';
import { describe, expect, it } from 'vitest';
import { burnVerification, hashPassword, verifyPassword } from '../src/users/password.js';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

describe('password hashing', () => {
  it('stores scrypt with its parameters, salt and hash, and verifies only the right password', async () => {
    const stored = await hashPassword('s3cret pass');
    const [scheme, n, r, p, salt, hash] = stored.split('$');
    expect([scheme, n, r, p]).toEqual(['scrypt', '16384', '8', '1']);
    expect(Buffer.from(salt as string, 'base64')).toHaveLength(16);
    expect(Buffer.from(hash as string, 'base64')).toHaveLength(32);
    expect(await verifyPassword('s3cret pass', stored)).toEqual({ ok: true, needsRehash: false });
    expect(await verifyPassword('s3cret pasS', stored)).toEqual({ ok: false, needsRehash: false });
    expect(await verifyPassword('', stored)).toEqual({ ok: false, needsRehash: false });
  });

  it('tells a password from the same password with NUL characters after it', async () => {
    // scrypt keys an HMAC with the password, and HMAC pads a short key with zero bytes.
    const variants = ['pw-12345', 'pw-12345\u0000', 'pw-12345\u0000\u0000'];
    for (const password of variants) {
      const stored = await hashPassword(password);
      expect(await verifyPassword(password, stored)).toEqual({ ok: true, needsRehash: false });
      for (const other of variants.filter((variant) => variant !== password)) {
        const verdict = await verifyPassword(other, stored);
        expect(verdict.ok, JSON.stringify({ password, other })).toBe(false);
      }
    }
  });

  it('verifies a hash stored with other parameters and asks for a rehash when they are weaker', async () => {
    const stored = await hashPassword('pw');
    const [, , , , salt] = stored.split('$');
    const { scrypt } = await import('node:crypto');
    const weak = await new Promise<Buffer>((resolve, reject) =>
      scrypt(
        'pw',
        Buffer.from(salt as string, 'base64'),
        32,
        { N: 1024, r: 8, p: 1 },
        (err, key) => (err ? reject(err) : resolve(key)),
      ),
    );
    const weakStored = `scrypt$1024$8$1$${salt}$${weak.toString('base64')}`;
    expect(await verifyPassword('pw', weakStored)).toEqual({ ok: true, needsRehash: true });
    expect(await verifyPassword('px', weakStored)).toEqual({ ok: false, needsRehash: true });
  });

  it('accepts an MD5 digest of the old system, in either case, and asks for a rehash', async () => {
    expect(await verifyPassword('old-pass', md5('old-pass'))).toEqual({
      ok: true,
      needsRehash: true,
    });
    expect(await verifyPassword('old-pass', md5('old-pass').toUpperCase())).toEqual({
      ok: true,
      needsRehash: true,
    });
    expect(await verifyPassword('old-pasS', md5('old-pass'))).toEqual({
      ok: false,
      needsRehash: true,
    });
  });

  it.each([
    '',
    'plain-text-password',
    'scrypt$16384$8$1$bad',
    'scrypt$16385$8$1$c2FsdA==$aGFzaGhhc2hoYXNoaGFzaA==',
    'scrypt$1073741824$8$1$c2FsdA==$aGFzaGhhc2hoYXNoaGFzaA==',
    'bcrypt$2b$10$abcdefghijklmnopqrstuv',
    md5('x').slice(1),
  ])('refuses a stored value it cannot read: %j', async (stored) => {
    expect((await verifyPassword('plain-text-password', stored)).ok).toBe(false);
  });

  it('hashes on the thread pool, so the event loop keeps running meanwhile', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await Promise.all([hashPassword('a'), hashPassword('b'), burnVerification('c')]);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(3);
  });

  it('spends on an unknown user what a wrong password costs, MD5 accounts included', async () => {
    const stored = await hashPassword('right');
    const checks = {
      wrong: () => verifyPassword('wrong', stored),
      unknown: () => burnVerification('wrong'),
      legacy: () => verifyPassword('wrong', md5('right')),
    };
    const runs = { wrong: [] as number[], unknown: [] as number[], legacy: [] as number[] };
    // The CPU each check spends (scrypt's thread included), which load from the
    // suites beside it does not change as it changes wall time; in turns all the same.
    for (let i = 0; i < 5; i++) {
      for (const [name, check] of Object.entries(checks) as [
        keyof typeof checks,
        () => Promise<unknown>,
      ][]) {
        const started = process.cpuUsage();
        await check();
        const { user, system } = process.cpuUsage(started);
        runs[name].push(user + system);
      }
    }
    const median = (times: number[]) => times.sort((a, b) => a - b)[2] as number;
    const [wrong, unknown, legacy] = [runs.wrong, runs.unknown, runs.legacy].map(median) as [
      number,
      number,
      number,
    ];
    expect(unknown / wrong).toBeGreaterThan(0.6);
    expect(unknown / wrong).toBeLessThan(1.6);
    expect(legacy / wrong).toBeGreaterThan(0.6);
  });
});

describe('tokens', () => {
  it('makes the old md5 token from username and password with no separator', () => {
    expect(md5Token('alice', 'secret')).toBe('c4e31313222cf05fcdd1fc068af5570e');
    expect(md5Token('用户', '密码')).toBe(md5('用户密码'));
  });

  it('makes random tokens of 32 bytes, hex, and hashes them with SHA-256', () => {
    const token = randomToken();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(randomToken()).not.toBe(token);
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it.each([
    ['random', 'a'.repeat(64), true],
    ['random', 'a'.repeat(63), false],
    ['random', 'A'.repeat(64), false],
    ['random', 'a'.repeat(32), false],
    ['md5', 'a'.repeat(32), true],
    ['md5', 'a'.repeat(64), false],
    ['md5', 'bull:judge:id', false],
    ['md5', `${'a'.repeat(32)}\n`, false],
  ] as const)('%s accepts %j: %s', (scheme, token, expected) => {
    expect(isWellFormedToken(scheme, token)).toBe(expected);
  });
});
