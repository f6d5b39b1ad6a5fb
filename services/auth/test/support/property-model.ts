import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { RowDataPacket } from '@svc/common';
import type { TokenScheme } from '@svc/session-guard';
import type { RawClient, RawRequest, RawResponse } from '@svc/test-kit';
import { expect } from 'vitest';
import { defaultSettings } from '../../src/config.js';
import { accountFailuresKey, loginFailuresKey } from '../../src/users/login-limiter.js';
import type {
  BodyRecipe,
  Carrier,
  Change,
  ContentType,
  Encoding,
  Placed,
  TokenRecipe,
  ValueRecipe,
} from './property-inputs.js';
import type { Stores } from './test-app.js';

/** The socket address the service sees: the client connects over 127.0.0.1. */
const CLIENT_ADDRESS = '127.0.0.1';

interface Account {
  id: number;
  username: string;
  password: string;
}

/** The stores as they are between two requests. */
export interface Snapshot {
  dbsize: number;
  /** Every key and its value (strings as they are, sets sorted). */
  keys: Map<string, string | string[]>;
  users: Map<number, { username: string; password: string }>;
}

/** The body as it was sent, beside the recipe it came from. */
export interface SentBody {
  type?: ContentType;
  encoding: Encoding;
  /** Undefined: no body at all. */
  bytes?: Buffer;
}

export interface SentRequest {
  raw: RawRequest;
  /** The values of the two token headers as sent, before the server sees them. */
  authorization?: string;
  tokenLines: string[];
  body: SentBody;
}

const METADATA_KEY = /^\{.+\}:meta$/;
const CREDENTIALS_KEY = /^(session:)?credentials:/;
const RETIRED = /"retired"/;

/**
 * A session's metadata without lastSeenAt, which any guarded use may advance
 * (sessions.test.ts holds it to SESSION_TOUCH_SECONDS).
 */
function metadataText(fields: Record<string, string>): string {
  const { lastSeenAt: _advances, ...kept } = fields;
  return JSON.stringify(Object.entries(kept).sort());
}

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
export const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** The model of one app's accounts and sessions, kept in step with every answer. */
export class Model {
  readonly accounts: Account[] = [];
  /** Live tokens and the stored username of their owner. */
  readonly live = new Map<string, string>();
  readonly revoked: string[] = [];

  constructor(
    readonly scheme: TokenScheme,
    readonly client: RawClient,
    readonly stores: Pick<Stores, 'pool' | 'redis'>,
  ) {}

  /** The guard README's key layout: `session:<sha256>` in random, the bare token in md5. */
  sessionKey(token: string): string {
    return this.scheme === 'md5' ? token : `session:${sha256(token)}`;
  }

  /** The guard's layout: the session key itself, in braces (a Cluster hash tag). */
  metadataKey(token: string): string {
    return `{${this.sessionKey(token)}}:meta`;
  }

  indexKey(username: string): string {
    return `session:user:${username.toLowerCase()}`;
  }

  /** What a password change replaces, for a minute, so that logins racing it fail. */
  credentialsKey(username: string): string {
    return `${this.scheme === 'md5' ? '' : 'session:'}credentials:${username.toLowerCase()}`;
  }

  accountNamed(username: string): Account | undefined {
    const wanted = username.toLowerCase();
    return this.accounts.find((account) => account.username.toLowerCase() === wanted);
  }

  liveTokens(): string[] {
    return [...this.live.keys()];
  }

  tokensOf(username: string): string[] {
    return this.liveTokens().filter((token) => this.live.get(token) === username);
  }

  async snapshot(): Promise<Snapshot> {
    const { redis, pool } = this.stores;
    const names = (await redis.keys('*')).sort();
    const types = (await redis.pipeline(names.map((key) => ['type', key])).exec()) ?? [];
    // The limiter's hash is read as its count of recorded failures, a session's
    // metadata as its fields.
    const reads = names.map((key, i) =>
      types[i]?.[1] === 'set'
        ? ['smembers', key]
        : types[i]?.[1] !== 'hash'
          ? ['get', key]
          : METADATA_KEY.test(key)
            ? ['hgetall', key]
            : ['hget', key, 'failures'],
    );
    const values = (await redis.pipeline(reads).exec()) ?? [];
    const keys = new Map<string, string | string[]>();
    names.forEach((key, i) => {
      const value = values[i]?.[1];
      if (Array.isArray(value)) keys.set(key, [...value].sort());
      else if (typeof value === 'object' && value !== null)
        keys.set(key, metadataText(value as Record<string, string>));
      else keys.set(key, String(value));
    });
    const [rows] = await pool.query<RowDataPacket[]>(
      'SELECT id, username, password FROM users ORDER BY id',
    );
    const users = new Map(
      rows.map((row) => [Number(row.id), { username: row.username, password: row.password }]),
    );
    return { dbsize: await redis.dbsize(), keys, users };
  }

  resolveToken(recipe: TokenRecipe): string {
    const live = this.liveTokens();
    const base = live[recipe.kind === 'text' ? 0 : recipe.pick % Math.max(live.length, 1)];
    switch (recipe.kind) {
      case 'text':
        return recipe.value;
      case 'live':
        if (base === undefined) throw new Error('no live token to pick');
        return base;
      case 'revoked':
        return this.revoked[recipe.pick % Math.max(this.revoked.length, 1)] ?? 'f'.repeat(64);
      case 'derived':
        return derive(base ?? 'f'.repeat(64), recipe.how, this);
    }
  }

  private place({ prefix, before, token, after }: Placed): string {
    return `${prefix}${before}${this.resolveToken(token)}${after}`;
  }

  /** The request a carrier and body describe, for this route, in today's state. */
  resolve(method: 'GET' | 'POST', route: string, carrier: Carrier, body: BodyRecipe): SentRequest {
    const headers: Record<string, string | string[]> = {};
    for (const { name, value } of carrier.extra) headers[name] = this.place(value);
    const authorization = carrier.authorization && this.place(carrier.authorization);
    if (authorization !== undefined) headers.authorization = authorization;
    const tokenLines = carrier.token.map((line) => this.place(line));
    if (tokenLines.length > 0) headers.token = tokenLines;

    const query = carrier.query.map((part) => {
      const value = 'token' in part ? this.resolveToken(part.token) : part.value;
      return `${encodeURIComponent(part.key)}=${encodeURIComponent(value)}`;
    });
    const search = query.join('&') + carrier.queryTail;
    const path = search === '' ? route : `${route}?${search}`;

    const owner = this.accountNamed(this.ownerOf(authorization, tokenLines) ?? '');
    const sent = this.encodeBody(body, owner);
    if (sent.type?.header !== undefined) headers['content-type'] = sent.type.header;
    if (sent.encoding !== 'none') headers['content-encoding'] = ENCODING_HEADER[sent.encoding];
    const wire = sent.bytes && (sent.encoding === 'gzip' ? gzipSync(sent.bytes) : sent.bytes);
    return {
      raw: { method, path, headers, body: wire },
      authorization,
      tokenLines,
      body: sent,
    };
  }

  /** The owner of the session the headers carry, if they carry a live one. */
  ownerOf(authorization: string | undefined, tokenLines: string[]): string | undefined {
    const token = specToken(authorization, tokenLines);
    return token === undefined ? undefined : this.live.get(token);
  }

  private encodeBody(body: BodyRecipe, owner: Account | undefined): SentBody {
    if (body.kind === 'none') return { encoding: 'none' };
    if (body.kind === 'raw') return { type: body.type, encoding: body.encoding, bytes: body.bytes };
    const chosen = this.accounts[body.chosen % Math.max(this.accounts.length, 1)];
    const valueText = (value: ValueRecipe): string => {
      if ('json' in value) return value.json;
      const account = value.of === 'owner' ? (owner ?? chosen) : chosen;
      const plain = account?.[value.ref] ?? 'nobody_at_all';
      return JSON.stringify(applyChange(plain, value.change));
    };
    const { gap } = body;
    const members = body.entries.map(
      ([key, value]) => `${JSON.stringify(key)}${gap}:${gap}${valueText(value)}`,
    );
    let text = `{${gap}${members.join(`,${gap}`)}${gap}}`;
    if (body.escaped) {
      text = text.replace(
        /[\u0080-\uffff]/g,
        (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
    }
    return { type: body.type, encoding: body.encoding, bytes: Buffer.from(text, 'utf8') };
  }

  async send(request: SentRequest): Promise<RawResponse> {
    return this.client.send(request.raw);
  }

  private async post(path: string, body: object): Promise<Answer> {
    const res = await this.client.send({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(body), 'utf8'),
    });
    return envelopeOf(res);
  }

  async register(username: string, password: string): Promise<Account> {
    const answer = await this.post('/api/user/register', { username, password });
    expect(answer.status, answer.body.message).toBe(200);
    const account = { id: (answer.body.data as { id: number }).id, username, password };
    this.accounts.push(account);
    return account;
  }

  /**
   * One more live token, by a real login: of an account the limiter lets in
   * and, in md5 (one token per password), that has none yet; of a new
   * account when there is no such one.
   */
  async issue(): Promise<string> {
    const { loginMaxFailures, accountMaxFailures } = defaultSettings;
    let account: Account | undefined;
    for (const candidate of this.accounts) {
      const { redis } = this.stores;
      const failures = await redis.hget(failuresKey(candidate.username), 'failures');
      const spent = await redis.hget(accountKey(candidate.username), 'failures');
      const fresh = this.scheme === 'random' || this.tokensOf(candidate.username).length === 0;
      const admitted =
        Number(failures ?? 0) < loginMaxFailures && Number(spent ?? 0) < accountMaxFailures;
      if (admitted && fresh) {
        account = candidate;
        break;
      }
    }
    account ??= await this.register(
      `kit_${randomBytes(5).toString('hex')}`,
      `pw-${randomBytes(4).toString('hex')}-密码😀`,
    );
    const { username, password } = account;
    const answer = await this.post('/api/user/login', { username, password });
    expect(answer.status, answer.body.message).toBe(200);
    const { token } = answer.body.data as { token: string };
    this.live.set(token, account.username);
    return token;
  }

  /** Live tokens enough to pick from. */
  async ensureLive(count: number): Promise<void> {
    while (this.live.size < count) await this.issue();
  }
}

/** The limiter's key for a username from the test's client address. */
export const failuresKey = (username: string) => loginFailuresKey(username, CLIENT_ADDRESS);
/** The key of a username's failures across every address. */
export const accountKey = accountFailuresKey;

const ENCODING_HEADER: Record<Exclude<Encoding, 'none'>, string> = {
  identity: 'identity',
  gzip: 'gzip',
  broken: 'gzip',
  unknown: 'x-squash',
};

function derive(base: string, how: string, model: Model): string {
  switch (how) {
    case 'upper':
      return base.toUpperCase();
    case 'flip-last':
      return base.slice(0, -1) + (base.endsWith('0') ? '1' : '0');
    case 'drop-last':
      return base.slice(0, -1);
    case 'doubled':
      return base + base;
    case 'sha256':
      return sha256(base);
    case 'md5':
      return md5(base);
    case 'session-key':
      return model.sessionKey(base);
    default:
      return model.live.get(base) ?? 'nobody';
  }
}

const ASCII_LETTER = /[A-Za-z]/;

function applyChange(value: string, change: Change): string {
  switch (change.kind) {
    case 'none':
      return value;
    case 'flip-case': {
      let letter = 0;
      return [...value]
        .map((char) => {
          if (!ASCII_LETTER.test(char)) return char;
          const flip = (change.mask >> (letter++ % 30)) & 1;
          if (!flip) return char;
          return char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase();
        })
        .join('');
    }
    case 'kelvin':
      // KELVIN SIGN lowercases to k.
      return value.replace(/k/gi, '\u212a');
    case 'append':
      return value + change.text;
    case 'drop-last':
      return [...value].slice(0, -1).join('');
    case 'trailing-space':
      return `${value} `;
    case 'accent':
      return /[ae]/.test(value)
        ? value.replace(/[ae]/, (c) => (c === 'a' ? 'á' : 'é'))
        : `${value}é`;
  }
}

/** What a server receives of a header value: HTTP strips SP and HTAB around it. */
export function received(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

/**
 * The token as the auth spec's Authentication section finds it in the headers
 * that arrive: `Authorization` when it starts with `Bearer ` (the rest,
 * trimmed), otherwise the `token` header (its lines joined as HTTP joins
 * them), trimmed; empty is no token.
 */
export function specToken(authorization: string | undefined, tokenLines: string[]) {
  const auth = authorization === undefined ? undefined : received(authorization);
  const raw =
    auth?.startsWith('Bearer ') === true
      ? auth.slice('Bearer '.length)
      : tokenLines.length > 0
        ? tokenLines.map(received).join(', ')
        : undefined;
  const token = raw?.trim();
  return token === '' ? undefined : token;
}

export type Parsed =
  | { kind: 'value'; value: unknown }
  | { kind: 'refused'; status: number; message: string };

const NOT_JSON = '请求体不是合法的JSON (body)';
const UNSUPPORTED = '不支持的请求体编码 (body)';

/** What `express.json()` leaves in `req.body`, or the answer it gives instead. */
export function parseAsExpress({ type, encoding, bytes }: SentBody): Parsed {
  if (bytes === undefined || type?.parsed === undefined || type.parsed === 'ignored') {
    return { kind: 'value', value: undefined };
  }
  if (type.parsed === 'bad-charset') return { kind: 'refused', status: 415, message: UNSUPPORTED };
  if (encoding === 'unknown') return { kind: 'refused', status: 415, message: UNSUPPORTED };
  if (encoding === 'broken') return { kind: 'refused', status: 400, message: '请求无效 (body)' };
  const text = bytes.toString('utf8').replace(/^\ufeff/, '');
  if (text.length === 0) return { kind: 'value', value: {} };
  const first = /^[ \t\n\r]*(.)/s.exec(text)?.[1];
  if (first !== '{' && first !== '[') return { kind: 'refused', status: 400, message: NOT_JSON };
  try {
    return { kind: 'value', value: JSON.parse(text) };
  } catch {
    return { kind: 'refused', status: 400, message: NOT_JSON };
  }
}

/** An answer of the service: JSON, in the envelope, status equal to code, never 5xx. */
export interface Answer {
  status: number;
  headers: RawResponse['headers'];
  body: { code: number; message: string; data?: unknown };
}

export function envelopeOf(res: RawResponse): Answer {
  expect(res.headers['content-type'], res.text).toMatch(/^application\/json; charset=utf-8$/);
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
  const body = JSON.parse(res.text) as Answer['body'];
  expect(Object.keys(body).filter((key) => !['code', 'message', 'data'].includes(key))).toEqual([]);
  expect(body).toMatchObject({ code: res.status, message: expect.any(String) });
  expect(res.status, res.text).toBeGreaterThanOrEqual(200);
  expect(res.status, res.text).toBeLessThan(500);
  return { status: res.status, headers: res.headers, body };
}

/** How each key touched by a request must look after it. */
export type KeyRule =
  | { absent: true }
  | { present: true }
  | { value: string }
  | { members: string[]; lacks?: string[]; mayVanish?: boolean };

/**
 * The Redis keys change exactly as the rules say, and every other key keeps
 * its value; DBSIZE moves by the keys that came and went.
 */
export function expectRedis(before: Snapshot, after: Snapshot, rules: Map<string, KeyRule>) {
  const names = new Set([...before.keys.keys(), ...after.keys.keys()]);
  for (const key of names) {
    const now = after.keys.get(key);
    const rule = rules.get(key);
    if (!rule) {
      // What a password change writes expires by itself, a minute after it.
      const expiring = CREDENTIALS_KEY.test(key) || RETIRED.test(String(before.keys.get(key)));
      if (now === undefined && expiring) continue;
      expect(now, `key ${key}`).toEqual(before.keys.get(key));
    } else if ('absent' in rule) {
      expect(now, `key ${key}`).toBeUndefined();
    } else if ('present' in rule) {
      expect(now, `key ${key}`).toBeDefined();
    } else if ('value' in rule) {
      expect(now, `key ${key}`).toBe(rule.value);
    } else if (now === undefined) {
      expect(rule.mayVanish, `set ${key} vanished`).toBe(true);
    } else {
      expect(now, `set ${key}`).toEqual(expect.arrayContaining(rule.members));
      for (const member of rule.lacks ?? []) expect(now, `set ${key}`).not.toContain(member);
    }
  }
  for (const [key, rule] of rules) {
    if ('value' in rule || 'present' in rule || ('members' in rule && !rule.mayVanish)) {
      expect(after.keys.has(key), `key ${key} present`).toBe(true);
    }
  }
  const came = [...after.keys.keys()].filter((key) => !before.keys.has(key)).length;
  const went = [...before.keys.keys()].filter((key) => !after.keys.has(key)).length;
  expect(after.dbsize - before.dbsize).toBe(came - went);
}

/** The users table is as before, apart from the given change. */
export function expectUsers(
  before: Snapshot,
  after: Snapshot,
  change: { added?: string; passwordOf?: number } = {},
) {
  const added = [...after.users.keys()].filter((id) => !before.users.has(id));
  expect(added.map((id) => after.users.get(id)?.username)).toEqual(
    change.added === undefined ? [] : [change.added],
  );
  for (const [id, row] of before.users) {
    const now = after.users.get(id);
    if (id === change.passwordOf) {
      expect(now?.username).toBe(row.username);
      expect(now?.password).not.toBe(row.password);
      expect(now?.password).toMatch(/^scrypt\$/);
    } else {
      expect(now, `user ${id}`).toEqual(row);
    }
  }
}
