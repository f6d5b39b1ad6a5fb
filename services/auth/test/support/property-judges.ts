import { parse } from 'node:querystring';
import { expect } from 'vitest';
import { defaultSettings } from '../../src/config.js';
import { lastDeviceKey } from '../../src/users/login-limiter.js';
import { passwordRefusal } from '../../src/users/password-strength.js';
import {
  type Answer,
  accountKey,
  failuresKey,
  type KeyRule,
  type Model,
  md5,
  type Parsed,
  parseAsExpress,
  type SentRequest,
  type Snapshot,
  sha256,
  specToken,
} from './property-model.js';
import { INVALID_TOKEN, NO_TOKEN, TOO_MANY, WRONG_CREDENTIALS } from './test-app.js';

/*
 * What each route must answer to a request, and do to the stores, given the
 * model of accounts and sessions and the stores as they were before it: the
 * contract's rules, written out once more in the test's own words.
 */

const MAX_FAILURES = defaultSettings.loginMaxFailures;
const ACCOUNT_MAX_FAILURES = defaultSettings.accountMaxFailures;
const TTL = defaultSettings.tokenTtl;
const NOT_OBJECT = 'body: 请求体须为JSON对象';

/** Code points, as the rules count characters. */
const length = (value: string) => [...value].length;
const chars = (min: number, max: number) => (value: string) =>
  length(value) >= min && length(value) <= max;

/** Each field of a body and the strings it accepts, in the order messages name them. */
type Rules = Record<string, (value: string) => boolean>;

const REGISTER_RULES: Rules = {
  username: (value) => /^[A-Za-z0-9_.-]{3,32}$/.test(value),
  password: chars(8, 128),
};
const LOGIN_RULES: Rules = { username: chars(1, 128), password: chars(1, 128) };
const CHANGE_RULES: Rules = { oldPassword: chars(1, 128), newPassword: chars(8, 128) };

/** What the model says a request must get, and must do to the stores. */
export interface Verdict {
  status: number;
  /** Exact; undefined with `fields`. */
  message?: string;
  /** A 400 whose message names exactly these fields, in this order. */
  fields?: string[];
  data?: unknown;
  /** Default: no key changes. */
  redis?: (answer: Answer) => Map<string, KeyRule>;
  /** Default: no row changes. */
  users?: { added?: string; passwordOf?: number };
  check?: (answer: Answer) => Promise<void> | void;
  /** Brings the model up to date. */
  apply?: (answer: Answer) => void;
}

export type Judge = (sent: SentRequest, before: Snapshot) => Verdict;

const fail = (status: number, message: string): Verdict => ({ status, message });

/** Passwords are hashed as UTF-8, so two strings with the same bytes are one password. */
const samePassword = (a: string, b: string) =>
  Buffer.from(a, 'utf8').equals(Buffer.from(b, 'utf8'));

/** The body's fields when they keep the rules, else the 400 (or 415) it gets. */
function fieldsOf(parsed: Parsed, rules: Rules): Verdict | { fields: Record<string, string> } {
  if (parsed.kind === 'refused') return fail(parsed.status, parsed.message);
  const { value } = parsed;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(400, NOT_OBJECT);
  }
  const fields = value as Record<string, unknown>;
  const broken = Object.entries(rules)
    .filter(([key, accepts]) => {
      const field = fields[key];
      return typeof field !== 'string' || !accepts(field);
    })
    .map(([key]) => key);
  if (broken.length > 0) return { status: 400, fields: broken };
  return { fields: fields as Record<string, string> };
}

const isVerdict = (value: object): value is Verdict => 'status' in value;

/** The guard's answer, or the session it lets through. */
function guard(model: Model, sent: SentRequest): Verdict | { token: string; owner: string } {
  const token = specToken(sent.authorization, sent.tokenLines);
  if (token === undefined) return fail(401, NO_TOKEN.message);
  const owner = model.live.get(token);
  if (owner === undefined) return fail(401, INVALID_TOKEN.message);
  return { token, owner };
}

/** The parser's refusal, which comes before any route (and before the guard). */
function refused(sent: SentRequest): Verdict | undefined {
  const parsed = parseAsExpress(sent.body);
  return parsed.kind === 'refused' ? fail(parsed.status, parsed.message) : undefined;
}

/**
 * A register of a taken name: the retry of the account's own register (its
 * exact spelling, made minutes ago, the same password) answers as that one
 * did, and a wrong password is counted as a login's; anything else is 409.
 */
function registeredBefore(model: Model, before: Snapshot, username: string, password: string) {
  const taken = fail(409, '用户名已存在');
  const account = model.accounts.find((candidate) => candidate.username === username);
  if (!account) return taken;
  const key = failuresKey(username);
  const ofAccount = accountKey(username);
  const failures = Number(before.keys.get(key) ?? 0);
  const accountFailures = Number(before.keys.get(ofAccount) ?? 0);
  if (accountFailures >= ACCOUNT_MAX_FAILURES || failures >= MAX_FAILURES) return taken;
  if (samePassword(password, account.password)) {
    return {
      status: 200,
      message: '注册成功',
      data: { id: account.id, username },
      redis: () => new Map<string, KeyRule>([[key, { absent: true }]]),
    };
  }
  const counted = () =>
    new Map([
      [key, { value: String(failures + 1) }],
      [ofAccount, { value: String(accountFailures + 1) }],
    ]);
  return { ...taken, redis: counted };
}

export const judges = {
  register:
    (model: Model): Judge =>
    (sent, before) => {
      const checked = fieldsOf(parseAsExpress(sent.body), REGISTER_RULES);
      if (isVerdict(checked)) return checked;
      const { username = '', password = '' } = checked.fields;
      // Which passwords are weak is the estimator's judgement (password-strength.test.ts);
      // the model asks it, and judges that a refusal writes and counts nothing.
      const refusal = passwordRefusal(username, password);
      if (refusal) return fail(400, refusal);
      const wanted = username.toLowerCase();
      const taken = [...before.users.values()].some((u) => u.username.toLowerCase() === wanted);
      if (taken) return registeredBefore(model, before, username, password);
      return {
        status: 200,
        message: '注册成功',
        data: { id: expect.any(Number), username },
        users: { added: username },
        apply: (answer) => {
          const { id } = answer.body.data as { id: number };
          model.accounts.push({ id, username, password });
        },
      };
    },

  login:
    (model: Model): Judge =>
    (sent, before) => {
      const checked = fieldsOf(parseAsExpress(sent.body), LOGIN_RULES);
      if (isVerdict(checked)) return checked;
      const { username = '', password = '' } = checked.fields;
      const wanted = username.toLowerCase();
      const id = [...before.users].find(([, u]) => u.username.toLowerCase() === wanted)?.[0];
      const account = model.accounts.find((candidate) => candidate.id === id);
      const key = failuresKey(username);
      const ofAccount = accountKey(username);
      // A spent account budget or a locked pair is refused before any check and keeps its counts.
      const failures = Number(before.keys.get(key) ?? 0);
      const accountFailures = Number(before.keys.get(ofAccount) ?? 0);
      if (accountFailures >= ACCOUNT_MAX_FAILURES) return fail(429, TOO_MANY.message);
      if (failures >= MAX_FAILURES) return fail(429, TOO_MANY.message);
      // A failure counts against the pair and the account's budget; a success clears only the pair.
      const counted = () =>
        new Map([
          [key, { value: String(failures + 1) }],
          [ofAccount, { value: String(accountFailures + 1) }],
        ]);
      if (!account || !samePassword(password, account.password)) {
        return { ...fail(401, WRONG_CREDENTIALS.message), redis: counted };
      }
      const tokenOf = (answer: Answer) => (answer.body.data as { token: string }).token;
      return {
        status: 200,
        message: '登录成功',
        data: {
          token: expect.stringMatching(
            model.scheme === 'md5' ? /^[0-9a-f]{32}$/ : /^[0-9a-f]{64}$/,
          ),
          expiresIn: TTL,
          deviceToken: expect.stringMatching(/^[A-Za-z0-9_-]{50}$/),
        },
        check: async (answer) => {
          const token = tokenOf(answer);
          if (model.scheme === 'md5') expect(token).toBe(md5(account.username + password));
          const ttl = await model.stores.redis.ttl(model.sessionKey(token));
          expect(ttl).toBeGreaterThan(TTL - 10);
          expect(ttl).toBeLessThanOrEqual(TTL);
        },
        redis: (answer) => {
          const token = tokenOf(answer);
          const rules = new Map<string, KeyRule>([
            [key, { absent: true }],
            [model.sessionKey(token), { value: account.username }],
            [model.metadataKey(token), { present: true }],
            [lastDeviceKey(account.username), { present: true }],
          ]);
          if (model.scheme === 'random') {
            rules.set(model.indexKey(account.username), { members: [sha256(token)] });
          }
          return rules;
        },
        apply: (answer) => model.live.set(tokenOf(answer), account.username),
      };
    },

  status:
    (model: Model): Judge =>
    (sent) => {
      const refusal = refused(sent);
      if (refusal) return refusal;
      const token = specToken(sent.authorization, sent.tokenLines);
      const owner = token === undefined ? undefined : model.live.get(token);
      if (owner === undefined)
        return { status: 200, message: '获取成功', data: { loggedIn: false } };
      return {
        status: 200,
        message: '获取成功',
        data: { loggedIn: true, username: owner, expiresIn: expect.any(Number) },
        check: (answer) => {
          const { expiresIn } = answer.body.data as { expiresIn: number };
          expect(expiresIn).toBeGreaterThan(TTL - 120);
          expect(expiresIn).toBeLessThanOrEqual(TTL);
        },
      };
    },

  me:
    (model: Model): Judge =>
    (sent) => {
      const session = refused(sent) ?? guard(model, sent);
      if (isVerdict(session)) return session;
      return {
        status: 200,
        message: '获取成功',
        data: { username: session.owner, totp: false },
      };
    },

  securityEvents:
    (model: Model): Judge =>
    (sent) => {
      const session = refused(sent) ?? guard(model, sent);
      if (isVerdict(session)) return session;
      // Express reads the query with node:querystring; no model keeps events, so a page is any list.
      const { pageSize, cursor } = parse(sent.raw.path.split('?').slice(1).join('?'));
      const size =
        typeof pageSize === 'string' && /^\d{1,3}$/.test(pageSize) ? Number(pageSize) : 0;
      const badSize = pageSize !== undefined && !(size >= 1 && size <= 100);
      const badText =
        cursor !== undefined &&
        !(typeof cursor === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(cursor));
      if (badSize || badText) {
        return {
          status: 400,
          fields: [...(badSize ? ['pageSize'] : []), ...(badText ? ['cursor'] : [])],
        };
      }
      // No cursor a client makes up is signed by the service.
      if (cursor !== undefined) return { status: 400, fields: ['cursor'] };
      return { status: 200, message: '获取成功', data: expect.any(Array) };
    },

  logout:
    (model: Model): Judge =>
    (sent) => {
      const session = refused(sent) ?? guard(model, sent);
      if (isVerdict(session)) return session;
      const { token, owner } = session;
      return {
        status: 200,
        message: '已退出登录',
        redis: () => {
          const rules = new Map<string, KeyRule>([
            [model.sessionKey(token), { absent: true }],
            [model.metadataKey(token), { absent: true }],
          ]);
          if (model.scheme === 'random') {
            rules.set(model.indexKey(owner), {
              members: [],
              lacks: [sha256(token)],
              mayVanish: true,
            });
          }
          return rules;
        },
        apply: () => {
          model.live.delete(token);
          model.revoked.push(token);
        },
      };
    },

  changePassword:
    (model: Model): Judge =>
    (sent, before) => {
      const session = refused(sent) ?? guard(model, sent);
      if (isVerdict(session)) return session;
      const checked = fieldsOf(parseAsExpress(sent.body), CHANGE_RULES);
      if (isVerdict(checked)) return checked;
      const { oldPassword = '', newPassword: chosen = '' } = checked.fields;
      const account = model.accountNamed(session.owner);
      if (!account) throw new Error(`the model lost the account of ${session.owner}`);
      // Judged before the old password, so a refusal counts nothing, not even against a lock.
      const refusal = passwordRefusal(account.username, chosen);
      if (refusal) return fail(400, refusal);
      const key = failuresKey(session.owner);
      // A locked pair is refused before any check and keeps its count.
      const failures = Number(before.keys.get(key) ?? 0);
      if (failures >= MAX_FAILURES) return fail(429, TOO_MANY.message);
      const counted = () => new Map([[key, { value: String(failures + 1) }]]);
      if (!samePassword(oldPassword, account.password)) {
        return { ...fail(400, '原密码错误'), redis: counted };
      }
      const ended = model.tokensOf(session.owner);
      return {
        status: 200,
        message: '密码修改成功,请重新登录',
        users: { passwordOf: account.id },
        redis: () => {
          const rules = new Map<string, KeyRule>([[key, { absent: true }]]);
          for (const token of ended) {
            rules.set(model.sessionKey(token), { absent: true });
            rules.set(model.metadataKey(token), { absent: true });
          }
          if (model.scheme === 'random')
            rules.set(model.indexKey(account.username), { absent: true });
          rules.set(model.credentialsKey(account.username), { present: true });
          // md5: the old password's token is retired, a marker in its metadata key.
          if (model.scheme === 'md5')
            rules.set(model.metadataKey(md5(account.username + oldPassword)), { present: true });
          return rules;
        },
        apply: () => {
          account.password = chosen;
          for (const token of ended) {
            model.live.delete(token);
            model.revoked.push(token);
          }
        },
      };
    },
};

/** The message of a validation 400, as the list of JSON keys it names. */
export const namedFields = (message: string) =>
  message.split('; ').map((part) => part.split(':')[0]);
