import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { createWaitQueue } from '@svc/common';
import { md5Hex } from '@svc/session-guard';

/**
 * Stored form: `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`, so the cost can
 * rise later without breaking the hashes already stored. A bare 32-hex value is
 * an MD5 digest imported from the old system.
 */
const COST = { N: 16384, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const LEGACY_MD5 = /^[0-9a-f]{32}$/i;
const STORED_SCRYPT =
  /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

// Stands in for the hash of a user that does not exist, so that answering
// "no such user" takes as long as answering "wrong password".
const DUMMY_HASH =
  'scrypt$16384$8$1$c2FsdC1vZi1uby11c2VyIQ==$ZHVtbXktaGFzaC10aGF0LW1hdGNoZXMtbm90aGluZyE=';

interface ScryptHash {
  cost: { N: number; r: number; p: number };
  salt: Buffer;
  hash: Buffer;
}

/*
 * Each scrypt keeps a core busy for tens of milliseconds. Left to the thread
 * pool, a storm of logins would take every core and slow every guarded request
 * with it; at most this many run at once, and the rest wait their turn.
 */
const hashSlots = createWaitQueue({ slots: Math.max(1, availableParallelism() - 1) });

/**
 * What scrypt gets of a password. scrypt keys an HMAC with it, and HMAC pads a
 * short key with zero bytes, so `pw` and `pw\0` would hash alike. UTF-8 whose
 * last byte is zero gets 0xFF appended, a byte UTF-8 never holds: the mapping
 * stays one-to-one, and every other password hashes exactly as before.
 */
function passwordBytes(password: string): Buffer {
  const bytes = Buffer.from(password, 'utf8');
  return bytes.at(-1) === 0 ? Buffer.concat([bytes, Buffer.from([0xff])]) : bytes;
}

/** Async on purpose: scrypt runs on the thread pool, never blocking other requests. */
function derive(password: string, salt: Buffer, length: number, cost: ScryptHash['cost']) {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  const key = passwordBytes(password);
  return hashSlots.run(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(key, salt, length, options, (err, derived) =>
          err ? reject(err) : resolve(derived),
        );
      }),
  );
}

function parseScrypt(stored: string): ScryptHash | undefined {
  const match = STORED_SCRYPT.exec(stored);
  if (!match) return undefined;
  const [N, r, p] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  const hash = Buffer.from(match[5] as string, 'base64');
  // Bounds keep a corrupted row from asking for gigabytes or hours.
  const sane = N >= 2 && N <= 2 ** 20 && (N & (N - 1)) === 0 && r >= 1 && r <= 32 && p >= 1;
  if (!sane || p > 16 || hash.length < 16) return undefined;
  return { cost: { N, r, p }, salt: Buffer.from(match[4] as string, 'base64'), hash };
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, KEY_BYTES, COST);
  const { N, r, p } = COST;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

async function matchesScrypt(password: string, stored: ScryptHash): Promise<boolean> {
  const candidate = await derive(password, stored.salt, stored.hash.length, stored.cost);
  return timingSafeEqual(candidate, stored.hash);
}

interface Verification {
  ok: boolean;
  /** The stored hash is an old MD5 digest or weaker than today's cost. */
  needsRehash: boolean;
}

/**
 * Checks a password against its stored hash in constant time. Every path costs
 * one scrypt of today's cost, the MD5 path included, so timing tells neither
 * whether the user exists nor how the password is stored.
 */
export async function verifyPassword(password: string, stored: string): Promise<Verification> {
  if (LEGACY_MD5.test(stored)) {
    await burnVerification(password);
    const ok = timingSafeEqual(Buffer.from(md5Hex(password), 'hex'), Buffer.from(stored, 'hex'));
    return { ok, needsRehash: true };
  }
  const parsed = parseScrypt(stored);
  if (!parsed) {
    await burnVerification(password);
    return { ok: false, needsRehash: false };
  }
  const ok = await matchesScrypt(password, parsed);
  return { ok, needsRehash: parsed.cost.N < COST.N || parsed.cost.r < COST.r };
}

/** The work of a failed verification, for a username that matches no user. */
export async function burnVerification(password: string): Promise<void> {
  await matchesScrypt(password, parseScrypt(DUMMY_HASH) as ScryptHash);
}
